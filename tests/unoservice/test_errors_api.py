"""Every error leaves in one JSON shape (docs/api.md "Errors"): 401, 403, 404, 405, 415,
malformed JSON, unknown paths, rate limits; and no input of any kind is a 500."""

from __future__ import annotations

import json
import types

import pytest
from django.http import HttpRequest, HttpResponse
from django.test import Client, RequestFactory
from django.urls import path as url_path
from rest_framework.test import APIClient

from games.models import Game
from players.models import Player
from tests.factories import API, Persona, assert_error, footprint, seat_table, start_game
from unoservice.api_errors import _flatten_validation, csrf_failure
from unoservice.throttling import AnonymousRateThrottle, PlayerRateThrottle


def new_game(host: Persona) -> str:
    """A waiting game of the host's with a seat free; its id."""
    return str(seat_table(host, seed=4).pk)


def started(host: Persona, guest: Persona) -> str:
    """A running game of the host and the guest; its id."""
    return str(start_game(host, guest, seed=4, target_score=500).pk)


# -- 401 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/players/me"),
        ("get", "/games"),
        ("post", "/games"),
        ("get", "/games/GAME"),
        ("post", "/games/GAME/join"),
        ("post", "/games/GAME/bots"),
        ("post", "/games/GAME/start"),
        ("post", "/games/GAME/leave"),
        ("post", "/games/GAME/moves"),
        ("post", "/games/GAME/challenge"),
        ("get", "/games/GAME/events"),
    ],
)
@pytest.mark.parametrize("header", [None, "Bearer wrong", "Token x", "Bearer"])
def test_every_endpoint_but_creating_a_player_answers_401_without_a_good_token(
    host, method, path, header
):
    game_id = new_game(host)
    client = APIClient()
    if header is not None:
        client.credentials(HTTP_AUTHORIZATION=header)
    response = getattr(client, method)(API + path.replace("GAME", game_id), {}, format="json")
    assert_error(response, 401, "not_authenticated")
    assert footprint(game_id)[:2] == (1, 1)


@pytest.mark.parametrize("header", [None, "Bearer wrong"], ids=["no token", "unknown token"])
def test_a_flood_of_401s_from_one_address_is_limited_and_others_are_not(db, monkeypatch, header):
    monkeypatch.setattr(AnonymousRateThrottle, "rate", "3/min", raising=False)
    flooder, other = Client(REMOTE_ADDR="10.9.9.1"), Client(REMOTE_ADDR="10.9.9.2")
    headers = {} if header is None else {"Authorization": header}
    answers = [flooder.get(API + "/games", headers=headers) for _ in range(5)]
    assert [answer.status_code for answer in answers] == [401, 401, 401, 429, 429]
    assert_error(answers[-1], 429, "rate_limited")
    assert int(answers[-1]["Retry-After"]) >= 1
    assert_error(other.get(API + "/games", headers=headers), 401, "not_authenticated")


def test_a_401_is_answered_before_a_404(anonymous, db):
    response = anonymous.get(API + "/games/00000000-0000-0000-0000-000000000000")
    assert_error(response, 401, "not_authenticated")


# -- 403 / 404 ------------------------------------------------------------------------------


def test_a_403_has_the_error_shape(host, guest):
    game_id = new_game(host)
    guest.post(f"/games/{game_id}/join")
    assert_error(guest.post(f"/games/{game_id}/start"), 403, "forbidden")


def test_a_404_for_a_missing_game_has_the_error_shape(host):
    assert_error(host.get("/games/00000000-0000-0000-0000-000000000000"), 404, "not_found")


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/nothing-here",
        "/api/v1/games/x/y/z",
        "/api/v1/players/me/too",
        "/api/v2/games",
        "/no/such/page",
        "/api/v1/games/",
        "/api/",
    ],
)
@pytest.mark.parametrize("method", ["get", "post", "delete"])
def test_an_unknown_path_is_a_json_404(host, method, path):
    response = getattr(host.client, method)(path, {}, format="json")
    assert_error(response, 404, "not_found")


def test_an_unknown_path_is_a_json_404_without_a_token_too(anonymous, db):
    assert_error(anonymous.get("/api/v1/nothing-here"), 404, "not_found")


@pytest.mark.parametrize("path", ["/api/v1/nonexistent", "/api/v1/games/", "/api/nothing"])
def test_an_unknown_path_under_the_api_is_a_json_404_in_development_too(host, settings, path):
    settings.DEBUG = True  # Django would answer its debug page, listing every URL
    response = host.client.get(path)
    assert response["Content-Type"] == "application/json"
    assert_error(response, 404, "not_found")


def test_an_unknown_path_outside_the_api_keeps_djangos_page_in_development(client, settings):
    settings.DEBUG = True
    response = client.get("/nothing-here")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


# -- 405 / 415 ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("put", "/games"),
        ("delete", "/games"),
        ("patch", "/games/GAME"),
        ("delete", "/games/GAME"),
        ("post", "/games/GAME"),
        ("get", "/games/GAME/moves"),
        ("get", "/games/GAME/challenge"),
        ("get", "/games/GAME/join"),
        ("put", "/games/GAME/start"),
        ("post", "/games/GAME/events"),
        ("put", "/players/me"),
        ("get", "/players/sign-in"),
        ("get", "/players"),
    ],
)
def test_a_wrong_method_is_a_405_in_the_error_shape(host, method, path):
    game_id = new_game(host)
    response = getattr(host.client, method)(API + path.replace("GAME", game_id), {}, format="json")
    assert_error(response, 405, None)
    assert footprint(game_id)[:2] == (1, 1)


@pytest.mark.parametrize(
    ("path", "content_type", "data"),
    [
        ("/games", "text/plain", '{"max_players": 2}'),
        ("/games", "application/x-www-form-urlencoded", "max_players=2"),
        ("/games", "application/xml", "<game/>"),
        ("/games/GAME/moves", "text/plain", '{"version": 1, "action": "draw"}'),
        ("/games/GAME/bots", "application/x-www-form-urlencoded", "strategy=random"),
        ("/games/GAME/challenge", "text/plain", '{"version": 1, "challenge": true}'),
    ],
)
def test_a_body_that_is_not_json_is_a_415_in_the_error_shape(host, path, content_type, data):
    game_id = new_game(host)
    response = host.client.post(
        API + path.replace("GAME", game_id), data=data, content_type=content_type
    )
    assert_error(response, 415, None)
    assert Game.objects.count() == 1
    assert footprint(game_id)[:2] == (1, 1)


def test_creating_a_player_with_a_form_body_is_a_415(anonymous, db):
    response = anonymous.post(
        API + "/players", data="name=Ann", content_type="application/x-www-form-urlencoded"
    )
    assert_error(response, 415, None)
    assert Player.objects.count() == 0


# -- malformed JSON ----------------------------------------------------------------------


MALFORMED_JSON = [
    "{",
    '{"max_players": 2',
    "{'max_players': 2}",
    '{"max_players": 2,}',
    '{"max_players": NaN}',
    '{"max_players": Infinity}',
    "undefined",
    "\x00",
    '{"a": "\\ud800"',
]


@pytest.mark.parametrize("raw", MALFORMED_JSON, ids=repr)
@pytest.mark.parametrize(
    "path",
    ["/players", "/games", "/games/GAME/bots", "/games/GAME/moves", "/games/GAME/challenge"],
)
def test_malformed_json_is_a_400_invalid_request(host, guest, path, raw):
    game_id = started(host, guest)
    before = footprint(game_id)
    response = host.client.post(
        API + path.replace("GAME", game_id), data=raw, content_type="application/json"
    )
    assert_error(response, 400, "invalid_request")
    assert footprint(game_id) == before
    assert Game.objects.count() == 1


@pytest.mark.parametrize("path", ["/players", "/games", "/games/GAME/moves"])
def test_a_body_that_is_not_utf8_is_a_400(host, guest, path):
    game_id = started(host, guest)
    response = host.client.post(
        API + path.replace("GAME", game_id),
        data=b'{"name": "\xff\xfe"}',
        content_type="application/json",
    )
    assert_error(response, 400, "invalid_request")


@pytest.mark.parametrize("path", ["/players", "/games", "/games/GAME/moves"])
def test_deeply_nested_json_is_a_400_not_a_500(host, guest, path):
    game_id = started(host, guest)
    raw = "[" * 100_000 + "]" * 100_000
    response = host.client.post(
        API + path.replace("GAME", game_id), data=raw, content_type="application/json"
    )
    assert_error(response, 400, "invalid_request")


@pytest.mark.parametrize("with_key", [False, True], ids=["plain", "with Idempotency-Key"])
def test_a_huge_body_is_rejected_without_a_500(host, guest, with_key):
    game_id = started(host, guest)
    before = footprint(game_id)
    raw = json.dumps({"version": before.version, "action": "draw", "pad": "x" * 3_000_000})
    headers = {"Idempotency-Key": "huge"} if with_key else {}
    response = host.client.post(
        f"{API}/games/{game_id}/moves", data=raw, content_type="application/json", headers=headers
    )
    assert_error(response, 413, "payload_too_large")
    assert footprint(game_id) == before


# -- echoed input --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "raw"),
    [
        ("/players", '{"\\ud800": 1}'),
        ("/players", '{"name": "x", "\\udfff": 1}'),
        ("/games", '{"rules": {"\\ud800": true}}'),
        ("/games", '{"\\ud800": 1}'),
        ("/games/GAME/bots", '{"strategy": "\\ud800"}'),
        ("/games/GAME/moves", '{"version": 1, "action": "draw", "\\ud800": 1}'),
        ("/games/GAME/moves", '{"version": 1, "action": "\\ud800"}'),
        ("/games/GAME/challenge", '{"version": 1, "challenge": true, "\\ud800": 1}'),
    ],
    ids=repr,
)
def test_a_lone_surrogate_in_a_json_string_is_a_400_not_a_500(host, path, raw):
    game_id = new_game(host)
    response = host.client.post(
        API + path.replace("GAME", game_id), data=raw, content_type="application/json"
    )
    assert_error(response, 400, "invalid_request")


# -- field errors ---------------------------------------------------------------------------


def test_an_unknown_rule_is_named_by_its_path(host):
    error = assert_error(host.post("/games", {"rules": {"stackng": True}}), 400, "invalid_request")
    assert error["message"] == "rules.stackng: unknown field"
    assert error["details"] == {"fields": {"rules.stackng": ["unknown field"]}}
    assert Game.objects.count() == 0


def test_rules_that_are_not_an_object_are_an_error_of_the_rules_field(host):
    error = assert_error(host.post("/games", {"rules": 5}), 400, "invalid_request")
    assert error["message"] == "rules: expected a JSON object"
    assert error["details"] == {"fields": {"rules": ["expected a JSON object"]}}


def test_every_nested_field_error_is_listed_by_its_path(host):
    body = {"rules": {"stacking": "yes", "sevens": True}, "max_players": 1}
    error = assert_error(host.post("/games", body), 400, "invalid_request")
    fields = error["details"]["fields"]
    assert set(fields) == {"rules.sevens", "max_players"}
    assert fields["rules.sevens"] == ["unknown field"]
    assert all(isinstance(m, str) for messages in fields.values() for m in messages)


@pytest.mark.parametrize(
    "body",
    [
        {"rules": {"stackng": True}},
        {"rules": 5},
        {"rules": {"stacking": {"nested": True}}},
        {"rules": {"stacking": "true"}},
        {"rules": []},
        {"rules": None},
    ],
    ids=repr,
)
def test_no_field_error_shows_a_python_repr(host, body):
    response = host.post("/games", body)
    error = assert_error(response, 400, "invalid_request")
    assert b"ErrorDetail" not in response.content
    assert "{" not in error["message"]
    assert "[" not in error["message"]
    for messages in error["details"]["fields"].values():
        assert all(isinstance(m, str) and "ErrorDetail" not in m for m in messages)


def test_list_items_are_named_by_index_and_their_own_errors_by_the_item():
    detail = {
        "seats": [{}, {"name": ["required"]}, {"non_field_errors": ["expected a JSON object"]}],
        "tags": {0: ["not a string"]},
    }
    message, details = _flatten_validation(detail)
    assert details == {
        "fields": {
            "seats.1.name": ["required"],
            "seats.2": ["expected a JSON object"],
            "tags.0": ["not a string"],
        }
    }
    assert message == "seats.1.name: required"


def test_the_bodys_own_error_keeps_non_field_errors_and_names_no_field():
    detail = {"non_field_errors": ["expected a JSON object"]}
    assert _flatten_validation(detail) == (
        "expected a JSON object",
        {"fields": {"non_field_errors": ["expected a JSON object"]}},
    )
    assert _flatten_validation(["not allowed"]) == ("not allowed", {})


# -- CSRF -------------------------------------------------------------------------------------


def _plain_django_view(request: HttpRequest) -> HttpResponse:
    return HttpResponse("changed")


def _urls_with_a_csrf_protected_view() -> types.ModuleType:
    """The service's URLs plus a plain Django view (no DRF, no csrf_exempt), so that
    a request fails the CSRF check outside the admin."""
    from unoservice import urls

    module = types.ModuleType("urls_with_a_csrf_protected_view")
    module.urlpatterns = [url_path("plain", _plain_django_view), *urls.urlpatterns]  # type: ignore[attr-defined]
    return module


def test_a_csrf_failure_outside_the_admin_is_a_403_in_the_error_shape(settings, db):
    settings.ROOT_URLCONF = _urls_with_a_csrf_protected_view()
    response = Client(enforce_csrf_checks=True).post("/plain", {"x": "1"})
    error = assert_error(response, 403, "forbidden")
    assert "CSRF" in error["message"]
    assert Client().post("/plain").content == b"changed"


def test_the_csrf_failure_view_answers_in_the_error_shape_for_api_paths():
    request = RequestFactory().post("/api/v1/games")
    error = assert_error(csrf_failure(request, reason="CSRF cookie not set."), 403, "forbidden")
    assert error["details"] == {"reason": "CSRF cookie not set."}


def test_a_csrf_failure_in_the_admin_keeps_djangos_html_page(db):
    response = Client(enforce_csrf_checks=True).post(
        "/admin/login/", {"username": "staff", "password": "x"}
    )
    assert response.status_code == 403
    assert response["Content-Type"].startswith("text/html")
    assert b"CSRF verification failed" in response.content


# -- rate limits -----------------------------------------------------------------------------


def test_a_player_over_the_rate_limit_gets_a_429_with_retry_after(host, monkeypatch):
    monkeypatch.setattr(PlayerRateThrottle, "rate", "3/min", raising=False)
    for _ in range(3):
        assert host.get("/players/me").status_code == 200
    response = host.get("/players/me")
    assert_error(response, 429, "rate_limited")
    retry_after = response["Retry-After"]
    assert retry_after.isdigit()
    assert 1 <= int(retry_after) <= 60


def test_the_rate_limit_counts_every_endpoint_of_a_player(host, monkeypatch):
    monkeypatch.setattr(PlayerRateThrottle, "rate", "3/min", raising=False)
    game_id = host.post("/games", {"max_players": 2, "seed": 4}).json()["id"]  # 1
    assert host.get("/games").status_code == 200  # 2
    assert host.get(f"/games/{game_id}").status_code == 200  # 3
    assert_error(host.get(f"/games/{game_id}/events"), 429, "rate_limited")


def test_the_player_rate_limit_is_per_player(host, guest, monkeypatch):
    monkeypatch.setattr(PlayerRateThrottle, "rate", "3/min", raising=False)
    for _ in range(3):
        host.get("/players/me")
    assert_error(host.get("/players/me"), 429, "rate_limited")
    assert guest.get("/players/me").status_code == 200


def test_a_rate_limited_request_changes_nothing(host, guest, monkeypatch):
    game_id = new_game(host)
    monkeypatch.setattr(PlayerRateThrottle, "rate", "2/min", raising=False)
    guest.get("/players/me")
    guest.get("/players/me")
    before = footprint(game_id)
    assert_error(guest.post(f"/games/{game_id}/join"), 429, "rate_limited")
    assert footprint(game_id) == before
    assert host.get(f"/games/{game_id}").json()["seats"][1:] == []


def test_creating_players_is_rate_limited_per_client_without_a_token(anonymous, db, monkeypatch):
    monkeypatch.setattr(AnonymousRateThrottle, "rate", "3/min", raising=False)
    for n in range(3):
        response = anonymous.post(API + "/players", {"name": f"p{n}"}, format="json")
        assert response.status_code == 201, response.json()
    response = anonymous.post(API + "/players", {"name": "p3"}, format="json")
    assert_error(response, 429, "rate_limited")
    assert int(response["Retry-After"]) >= 1
    assert Player.objects.count() == 3


def test_the_anonymous_rate_limit_does_not_hold_back_players_with_a_token(
    host, anonymous, monkeypatch
):
    monkeypatch.setattr(AnonymousRateThrottle, "rate", "1/min", raising=False)
    anonymous.post(API + "/players", {"name": "a"}, format="json")
    assert_error(anonymous.post(API + "/players", {"name": "b"}, format="json"), 429, None)
    for _ in range(3):
        assert host.get("/players/me").status_code == 200


def test_the_anonymous_rate_limit_counts_rejected_requests_too(anonymous, db, monkeypatch):
    monkeypatch.setattr(AnonymousRateThrottle, "rate", "2/min", raising=False)
    for _ in range(2):
        anonymous.post(API + "/players", {"name": ""}, format="json")
    response = anonymous.post(API + "/players", {"name": "Ann"}, format="json")
    assert_error(response, 429, "rate_limited")


# -- no 500, ever -----------------------------------------------------------------------------

ODD_BODIES = [
    None,
    "null",
    "[]",
    "{}",
    '"text"',
    "0",
    "-1",
    "1e400",
    "true",
    '{"version": 1e400, "action": "draw"}',
    '{"version": 99999999999999999999999999, "action": "draw"}',
    '{"version": VERSION, "action": "play", "card": 99999999999999999999999999}',
    '{"version": VERSION, "action": "catch_uno", "target": 99999999999999999999999999}',
    '{"version": VERSION, "action": "play", "card": 7, "target": -99999999999999999999}',
    '{"version": VERSION, "action": "choose_color", "color": {"a": 1}}',
    '{"version": VERSION, "challenge": {"a": [1, 2]}}',
    '{"strategy": {"a": 1}}',
    '{"strategy": ["random", "greedy"]}',
    '{"name": "\\u0000"}',
    '{"name": {"x": 1}}',
    '{"max_players": 99999999999999999999999999}',
    '{"seed": 99999999999999999999999999999999999999}',
    '{"rules": {"stacking": true, "stacking": false}}',
    '{"rules": {"stacking": {"nested": true}}}',
    '{"turn_timeout": -0.0}',
    '{"version": VERSION, "action": "draw", "\\u0000": 1}',
    '{"version": VERSION, "action": "play\\u0000"}',
    '{"strategy": "random\\u0000"}',
    '{"version": VERSION, "action": "play", "card": 1, "color": "\\u0000"}',
]
POST_PATHS = [
    "/players",
    "/games",
    "/games/GAME/join",
    "/games/GAME/bots",
    "/games/GAME/start",
    "/games/GAME/moves",
    "/games/GAME/challenge",
    "/games/GAME/leave",
]


@pytest.mark.parametrize("raw", ODD_BODIES, ids=repr)
@pytest.mark.parametrize("path", POST_PATHS)
def test_no_body_on_any_post_endpoint_produces_a_500(host, guest, path, raw):
    game_id = started(host, guest)
    version = footprint(game_id).version
    url = API + path.replace("GAME", game_id)
    if raw is None:
        response = host.client.post(url)
    else:
        body = raw.replace("VERSION", str(version))
        response = host.client.post(url, data=body, content_type="application/json")
    assert response.status_code < 500, response.content
    if response.status_code >= 400:
        assert_error(response, response.status_code, None)


@pytest.mark.parametrize(
    "query",
    [
        "after=99999999999999999999999999",
        "after=-99999999999999999999999999",
        "after=1e3",
        "after=%00",
        "wait=1e400",
        "after=1&after=2",
        "wait=nan",
        "after=\u0661",
    ],
)
def test_no_query_on_the_event_feed_produces_a_500(host, query):
    game_id = new_game(host)
    response = host.client.get(f"{API}/games/{game_id}/events?{query}")
    assert response.status_code < 500, response.content
    if response.status_code >= 400:
        assert_error(response, response.status_code, None)


@pytest.mark.parametrize(
    "query",
    [
        "page=0",
        "page=-1",
        "page=abc",
        "page=99999999999999999999999999",
        "page=last",
        "status=%00",
        "mine=%00",
        "status=waiting&status=playing",
        "page_size=100000",
    ],
)
def test_no_query_on_the_game_list_produces_a_500(host, query):
    new_game(host)
    response = host.client.get(f"{API}/games?{query}")
    assert response.status_code < 500, response.content
    if response.status_code >= 400:
        assert_error(response, response.status_code, None)


@pytest.mark.parametrize(
    "page", ["\u0661", "\u06f1", "\uff11", " 1", "1 ", "+1", "1_0", "1.0", "0x1"], ids=repr
)
def test_a_page_number_that_is_not_ascii_digits_is_no_such_page(host, page):
    new_game(host)
    assert_error(host.get("/games", page=page), 404, "not_found")


@pytest.mark.parametrize("page", ["1", "01", "last", ""])
def test_a_page_number_in_ascii_digits_or_last_or_none_is_the_page(host, page):
    game_id = new_game(host)
    response = host.get("/games", page=page)
    assert response.status_code == 200, response.json()
    assert [game["id"] for game in response.json()["results"]] == [game_id]


@pytest.mark.parametrize(
    "game_id",
    [
        "00000000-0000-0000-0000-000000000000",
        "%00",
        "%E2%82%AC",
        "'; DROP TABLE games_game; --",
        "{" + "0" * 32 + "}",
        "0" * 32,
        "urn:uuid:00000000-0000-0000-0000-000000000000",
        "x" * 2000,
    ],
)
def test_no_game_id_produces_a_500(host, game_id):
    for suffix in ("", "/events"):
        response = host.client.get(f"{API}/games/{game_id}{suffix}")
        assert response.status_code < 500, response.content
        assert_error(response, response.status_code, None)
    for action in ("join", "start", "leave", "moves", "challenge", "bots"):
        response = host.post(f"/games/{game_id}/{action}", {"version": 1})
        assert response.status_code < 500, response.content
        assert_error(response, response.status_code, None)
