"""Private games: invite codes, who sees them listed and who may watch them, joining
by code, guessing codes, and the `rated` flag."""

from __future__ import annotations

import re

import pytest
from django.db import IntegrityError, transaction

from games import services
from games.models import Event, Game, GameStatus
from tests.factories import (
    Persona,
    assert_error,
    footprint,
    play_out,
    seat_table,
    stamp_game,
    start_game,
)
from unoservice import codes as invite_codes
from unoservice.throttling import FailedInviteCodeThrottle

pytestmark = pytest.mark.django_db

CODE = re.compile(r"^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{8}$")
NOBODYS_CODE = "ZZZZ9999"


def private_game(host: Persona, **body: object) -> dict:
    answer = host.post("/games", {"visibility": "private", **body})
    assert answer.status_code == 201, answer.json()
    return answer.json()


def hyphenated(code: str) -> str:
    """The code as a person might type it: lower case, in two groups."""
    return f"{code[:4].lower()}-{code[4:].lower()}"


@pytest.fixture
def wrong_codes_allowed(monkeypatch: pytest.MonkeyPatch) -> int:
    """A small limit of wrong codes, so that tests reach it quickly."""
    monkeypatch.setattr(FailedInviteCodeThrottle, "rate", "3/min", raising=False)
    return 3


# -- creating ---------------------------------------------------------------------------


def test_a_private_game_gets_an_eight_character_code_from_the_alphabet(host):
    view = private_game(host)
    assert view["visibility"] == "private"
    assert CODE.match(view["invite_code"])
    assert Game.objects.get(pk=view["id"]).invite_code == view["invite_code"]


def test_codes_differ_across_games():
    codes = {invite_codes.new_code() for _ in range(500)}
    assert len(codes) == 500
    assert all(CODE.match(code) for code in codes)
    assert not set("0O1IL") & set("".join(codes))


def test_a_game_is_public_and_rated_without_a_code_by_default(host):
    answer = host.post("/games", {})
    view = answer.json()
    assert (view["visibility"], view["rated"], view["invite_code"]) == ("public", True, None)


def test_rated_false_is_kept_and_shown_in_the_view_and_the_lobby(host):
    view = host.post("/games", {"rated": False}).json()
    assert view["rated"] is False
    assert Game.objects.get(pk=view["id"]).rated is False
    (row,) = host.get("/games").json()["results"]
    assert (row["rated"], row["visibility"]) == (False, "public")


@pytest.mark.parametrize(
    "body",
    [{"visibility": "secret"}, {"visibility": None}, {"rated": "yes"}, {"rated": 1}],
)
def test_a_bad_visibility_or_rated_is_a_400_and_creates_nothing(host, body):
    error = assert_error(host.post("/games", body), 400, "invalid_request")
    assert set(error["details"]["fields"]) == set(body)
    assert not Game.objects.exists()


def test_a_code_drawn_again_while_its_game_is_open_is_drawn_anew(host, guest, monkeypatch):
    first = private_game(host)["invite_code"]
    draws = iter([first, "ABCDEFGH"])
    monkeypatch.setattr(invite_codes, "new_code", lambda: next(draws))
    second = private_game(guest)
    assert second["invite_code"] == "ABCDEFGH"
    assert Game.objects.filter(invite_code=first).count() == 1


def test_a_finished_games_code_may_go_to_a_new_game(host, guest, monkeypatch):
    monkeypatch.setattr(invite_codes, "new_code", lambda: "ABCDEFGH")
    old = private_game(host)
    Game.objects.filter(pk=old["id"]).update(status=GameStatus.FINISHED)
    assert private_game(guest)["invite_code"] == "ABCDEFGH"


def test_the_database_refuses_two_open_games_with_the_same_code():
    stamp_game(visibility="private", invite_code="ABCDEFGH")
    stamp_game(visibility="private", invite_code="ABCDEFGH", status="abandoned")
    with pytest.raises(IntegrityError), transaction.atomic():
        stamp_game(visibility="private", invite_code="ABCDEFGH", status="playing")


def test_a_code_that_keeps_colliding_fails_after_a_few_draws(host, guest, monkeypatch):
    monkeypatch.setattr(invite_codes, "new_code", lambda: "ABCDEFGH")
    private_game(host)
    with pytest.raises(IntegrityError):
        services.game_create(host=guest.player, visibility="private")
    assert Game.objects.count() == 1


# -- the lobby ----------------------------------------------------------------------------


def test_the_lobby_lists_a_private_game_only_to_its_players(host, guest, outsider):
    game = seat_table(host, guest, max_players=3, visibility="private")
    public = seat_table(outsider)

    def listed(persona: Persona, **query: str) -> set[str]:
        return {row["id"] for row in persona.get("/games", **query).json()["results"]}

    assert listed(host) == listed(guest) == {str(game.pk), str(public.pk)}
    assert listed(outsider) == {str(public.pk)}
    assert listed(outsider, status="waiting") == {str(public.pk)}
    assert outsider.get("/games").json()["count"] == 1
    services.game_leave(game_id=game.pk, player=guest.player)
    assert listed(guest) == {str(public.pk)}


def test_a_host_who_left_no_longer_sees_the_private_game_listed(host, guest):
    game = seat_table(host, guest, visibility="private")
    services.game_leave(game_id=game.pk, player=host.player)
    assert str(game.pk) not in {row["id"] for row in host.get("/games").json()["results"]}
    assert_error(host.get(f"/games/{game.pk}"), 404, "not_found")


def test_a_player_whose_seat_a_bot_holds_after_timeouts_still_sees_the_game(host, guest):
    game = start_game(host, guest, seed=5, visibility="private")
    game.seats.filter(player=guest.player).update(bot="greedy", timed_out=True)
    seating = list(game.seating)
    seating[1] = {**seating[1], "bot": "greedy"}
    Game.objects.filter(pk=game.pk).update(seating=seating)
    assert guest.get(f"/games/{game.pk}").status_code == 200
    assert str(game.pk) in {row["id"] for row in guest.get("/games").json()["results"]}


# -- reading --------------------------------------------------------------------------------


def read_endpoints(game_id: object) -> list[tuple[str, str, dict[str, str]]]:
    """Every read of a game: (method, path, query)."""
    return [
        ("get", f"/games/{game_id}", {}),
        ("get", f"/games/{game_id}/events", {}),
        ("get", f"/games/{game_id}/log", {}),
        ("get", f"/games/{game_id}/replay", {"seq": "1"}),
        ("get", f"/games/{game_id}/stream", {}),
        ("post", f"/games/{game_id}/stream-ticket", {}),
    ]


def read(persona: Persona, method: str, path: str, query: dict[str, str]):
    if method == "get":
        return persona.get(path, **query)
    suffix = "?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else ""
    return persona.post(path + suffix)


def test_every_read_of_a_private_game_is_a_404_for_an_outsider(host, guest, outsider):
    game = play_out(start_game(host, guest, seed=7, visibility="private"), {0: host, 1: guest})
    unknown = "00000000-0000-0000-0000-000000000000"
    for method, path, query in read_endpoints(game.pk):
        error = assert_error(read(outsider, method, path, query), 404, "not_found")
        missing = read(outsider, method, path.replace(str(game.pk), unknown), query)
        assert error == missing.json()["error"], path  # nothing tells the two apart


def test_a_holder_of_the_code_may_read_every_endpoint(host, guest, outsider):
    game = play_out(start_game(host, guest, seed=7, visibility="private"), {0: host, 1: guest})
    for code in (game.invite_code, hyphenated(game.invite_code)):
        for method, path, query in read_endpoints(game.pk):
            answer = read(outsider, method, path, {**query, "code": code})
            assert answer.status_code in (200, 201), (path, answer.content)


def test_the_players_and_staff_read_a_private_game_without_the_code(host, guest, staff):
    game = start_game(host, guest, seed=7, visibility="private")
    for persona in (host, guest, staff):
        for method, path, query in read_endpoints(game.pk):
            answer = read(persona, method, path, query)
            # The replay of a running game is for staff only, private or not.
            expected = 403 if path.endswith("/replay") and persona is not staff else 200
            assert answer.status_code in (expected, 201), (persona.player.name, path)


def test_a_code_sent_for_a_public_game_is_ignored(host, outsider):
    game = seat_table(host)
    assert outsider.get(f"/games/{game.pk}", code="nonsense").status_code == 200


def test_the_code_is_shown_to_seated_players_only(host, guest, outsider, staff):
    game = seat_table(host, guest, max_players=3, visibility="private")
    assert host.get(f"/games/{game.pk}").json()["invite_code"] == game.invite_code
    assert guest.get(f"/games/{game.pk}").json()["invite_code"] == game.invite_code
    watched = outsider.get(f"/games/{game.pk}", code=game.invite_code).json()
    assert watched["invite_code"] is None
    assert staff.get(f"/games/{game.pk}").json()["invite_code"] is None


def test_the_code_never_reaches_anyone_through_the_lobby_events_or_log(host, guest, outsider):
    game = play_out(start_game(host, guest, seed=9, visibility="private"), {0: host, 1: guest})
    code = game.invite_code
    assert code
    answers = [
        host.get("/games"),
        host.get(f"/games/{game.pk}/events"),
        host.get(f"/games/{game.pk}/log"),
        outsider.get(f"/games/{game.pk}", code=code),
        outsider.get(f"/games/{game.pk}/events", code=code),
        outsider.get(f"/games/{game.pk}/log", code=code),
        outsider.get("/games"),
    ]
    for answer in answers:
        assert answer.status_code == 200
        assert code not in answer.content.decode()
    assert not any(code in str(data) for data in Event.objects.values_list("data", flat=True))


# -- joining --------------------------------------------------------------------------------


def test_joining_by_code_seats_the_player_and_shows_them_the_code(host, guest):
    game = private_game(host)
    answer = guest.post("/games/join", {"code": hyphenated(game["invite_code"])})
    assert answer.status_code == 200, answer.json()
    view = answer.json()
    assert view["id"] == game["id"]
    assert view["you"]["seat"] == 1
    assert view["invite_code"] == game["invite_code"]
    assert [e.type for e in Event.objects.filter(game_id=game["id"])][-1] == "player_joined"


def test_joining_by_code_twice_changes_nothing(host, guest):
    game = private_game(host)
    guest.post("/games/join", {"code": game["invite_code"]})
    before = footprint(game["id"])
    answer = guest.post("/games/join", {"code": f"  {game['invite_code']} "})
    assert answer.status_code == 200
    assert footprint(game["id"]) == before


def test_joining_by_code_has_the_errors_of_joining_by_id(host, guest, outsider):
    full = private_game(host, max_players=2)
    guest.post("/games/join", {"code": full["invite_code"]})
    assert_error(outsider.post("/games/join", {"code": full["invite_code"]}), 409, "game_full")
    started = start_game(host, guest, seed=3, visibility="private")
    assert_error(outsider.post("/games/join", {"code": started.invite_code}), 409, "wrong_phase")


def test_joining_a_public_game_by_code_is_a_404_since_it_has_none(host, guest):
    seat_table(host)
    assert_error(guest.post("/games/join", {"code": NOBODYS_CODE}), 404, "not_found")


def test_a_private_game_cannot_be_joined_by_id_without_the_code(host, outsider):
    game = private_game(host)
    before = footprint(game["id"])
    assert_error(outsider.post(f"/games/{game['id']}/join"), 404, "not_found")
    assert footprint(game["id"]) == before


def test_a_finished_games_code_joins_nothing(host, guest, outsider):
    game = play_out(start_game(host, guest, seed=7, visibility="private"), {0: host, 1: guest})
    assert_error(outsider.post("/games/join", {"code": game.invite_code}), 404, "not_found")


def test_joining_by_code_is_idempotent(host, guest):
    game = private_game(host, max_players=3)
    first = guest.post("/games/join", {"code": game["invite_code"]}, **{"Idempotency-Key": "k1"})
    again = guest.post("/games/join", {"code": game["invite_code"]}, **{"Idempotency-Key": "k1"})
    assert again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert Game.objects.get(pk=game["id"]).version == 2


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "code"),
        ({"code": 12345678}, "code"),
        ({"code": None}, "code"),
        ({"code": ["ABCDEFGH"]}, "code"),
        ({"code": "A" * 33}, "code"),
        ({"code": "ABCDEFG"}, "code"),
        ({"code": "ABCDEFG0"}, "code"),
        ({"code": ""}, "code"),
        ({"code": "ABCDEFGH", "game": 1}, "game"),
    ],
)
def test_a_bad_body_is_a_400_and_changes_nothing(host, guest, body, field):
    game = private_game(host)
    before = footprint(game["id"])
    error = assert_error(guest.post("/games/join", body), 400, "invalid_request")
    assert field in error["details"]["fields"]
    assert footprint(game["id"]) == before


def test_a_body_that_is_not_an_object_is_a_400(guest):
    assert_error(guest.post("/games/join", ["ABCDEFGH"]), 400, "invalid_request")


# -- guessing -------------------------------------------------------------------------------


def test_wrong_codes_are_404_then_every_code_is_429_until_the_window_ends(
    host, guest, wrong_codes_allowed
):
    game = private_game(host)
    for _ in range(wrong_codes_allowed):
        assert_error(guest.post("/games/join", {"code": NOBODYS_CODE}), 404, "not_found")
    refused = guest.post("/games/join", {"code": game["invite_code"]})
    error = assert_error(refused, 429, "rate_limited")
    assert int(refused["Retry-After"]) >= 1
    assert error["details"]["retry_after"] == int(refused["Retry-After"])
    assert len(Game.objects.get(pk=game["id"]).seating) == 1


def test_wrong_codes_are_counted_per_player(host, guest, outsider, wrong_codes_allowed):
    game = private_game(host, max_players=3)
    for _ in range(wrong_codes_allowed):
        guest.post("/games/join", {"code": NOBODYS_CODE})
    assert outsider.post("/games/join", {"code": game["invite_code"]}).status_code == 200


def test_right_codes_and_bad_bodies_are_not_counted(host, guest, wrong_codes_allowed):
    game = private_game(host, max_players=3)
    for _ in range(wrong_codes_allowed + 2):
        assert guest.post("/games/join", {"code": game["invite_code"]}).status_code == 200
        assert guest.post("/games/join", {"code": "short"}).status_code == 400
    assert_error(guest.post("/games/join", {"code": NOBODYS_CODE}), 404, "not_found")


def test_wrong_codes_sent_to_read_a_game_are_counted_too(host, outsider, wrong_codes_allowed):
    game = private_game(host)
    for _ in range(wrong_codes_allowed):
        assert_error(outsider.get(f"/games/{game['id']}", code=NOBODYS_CODE), 404, "not_found")
    answer = outsider.get(f"/games/{game['id']}", code=game["invite_code"])
    assert_error(answer, 429, "rate_limited")
    assert_error(outsider.post("/games/join", {"code": game["invite_code"]}), 429, "rate_limited")


def test_the_limit_of_wrong_codes_comes_from_the_settings():
    from django.conf import settings

    assert settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["invite_code"] == "10/min"
    assert FailedInviteCodeThrottle().num_requests == 10


def test_joining_by_code_counts_toward_the_limit_of_open_games(host, guest):
    for _ in range(services.MAX_OPEN_GAMES):
        services.game_create(host=guest.player)
    game = private_game(host)
    error = assert_error(guest.post("/games/join", {"code": game["invite_code"]}), 409, None)
    assert error["code"] == "too_many_games"
