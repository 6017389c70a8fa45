"""``Idempotency-Key`` on every POST (docs/api.md "Idempotency"): the same key with the same
body gets the first answer again without acting twice, for 24 hours."""

from __future__ import annotations

import datetime as dt
import json
import threading
from typing import Any

import pytest
from django.db import connection, transaction
from django.utils import timezone
from rest_framework.test import APIClient

from games import tasks
from games.engine.position import build_state
from games.models import Event, Game, Seat
from players.models import Player
from tests.factories import (
    API,
    Persona,
    assert_error,
    footprint,
    put_state,
    seat_table,
    start_game,
)
from unoservice.idempotency import http as idempotency
from unoservice.idempotency.models import IdempotencyRecord

R1 = 1
KEY = "Idempotency-Key"


def keyed(persona: Persona, path: str, body: Any, key: str) -> Any:
    return persona.post(path, body, **{KEY: key})


def new_game(host: Persona, max_players: int = 2) -> str:
    """A waiting game of the host's with seats free; its id."""
    return str(seat_table(host, seed=8, max_players=max_players).pk)


def table(host: Persona, guest: Persona) -> str:
    """A running game of the host and the guest where the host, to act, holds R1 on a
    red 5; its id."""
    game = start_game(host, guest, seed=8, target_score=500)
    put_state(game, build_state([["R1", "R2", "G3", "Y9"], ["B4", "B5", "Y6"]], top="R5"))
    return str(game.pk)


def same_answer(first: Any, again: Any) -> None:
    assert again.status_code == first.status_code
    assert again.json() == first.json()


# -- replays ------------------------------------------------------------------------------


def test_the_same_move_with_the_same_key_is_applied_once_and_answered_twice(host, guest):
    game_id = table(host, guest)
    version = footprint(game_id).version
    body = {"version": version, "action": "play", "card": R1}
    first = keyed(host, f"/games/{game_id}/moves", body, "move-1")
    assert first.status_code == 200, first.json()
    after = footprint(game_id)
    again = keyed(host, f"/games/{game_id}/moves", body, "move-1")
    same_answer(first, again)
    assert footprint(game_id) == after
    assert after.version == version + 1
    assert Event.objects.filter(game_id=game_id).count() == after.last_seq


def test_a_replayed_move_is_not_a_stale_version_even_after_the_game_moved_on(host, guest):
    game_id = table(host, guest)
    version = footprint(game_id).version
    body = {"version": version, "action": "play", "card": R1}
    first = keyed(host, f"/games/{game_id}/moves", body, "k")
    assert guest.move(game_id, version + 1, action="draw").status_code == 200
    moved_on = footprint(game_id)
    same_answer(first, keyed(host, f"/games/{game_id}/moves", body, "k"))
    assert footprint(game_id) == moved_on


def test_creating_a_game_twice_with_one_key_creates_one_game(host):
    body = {"max_players": 3, "target_score": 100}
    first = keyed(host, "/games", body, "create-1")
    assert first.status_code == 201, first.json()
    again = keyed(host, "/games", body, "create-1")
    same_answer(first, again)
    assert Game.objects.count() == 1


@pytest.mark.parametrize("action", ["join", "leave"])
def test_joining_or_leaving_twice_with_one_key_acts_once(host, guest, outsider, action):
    game_id = new_game(host, max_players=3)
    if action == "leave":
        guest.post(f"/games/{game_id}/join")
    first = keyed(guest, f"/games/{game_id}/{action}", None, "lobby")
    assert first.status_code == 200, first.json()
    after = footprint(game_id)
    same_answer(first, keyed(guest, f"/games/{game_id}/{action}", None, "lobby"))
    assert footprint(game_id) == after


def test_adding_a_bot_twice_with_one_key_adds_one_bot(host):
    game_id = new_game(host, max_players=4)
    first = keyed(host, f"/games/{game_id}/bots", {"strategy": "greedy"}, "bot")
    assert first.status_code == 201, first.json()
    same_answer(first, keyed(host, f"/games/{game_id}/bots", {"strategy": "greedy"}, "bot"))
    assert Seat.objects.filter(game_id=game_id).count() == 2


def test_starting_twice_with_one_key_answers_the_start_again(host, guest):
    game_id = new_game(host)
    guest.post(f"/games/{game_id}/join")
    first = keyed(host, f"/games/{game_id}/start", None, "start")
    assert first.status_code == 200, first.json()
    after = footprint(game_id)
    same_answer(first, keyed(host, f"/games/{game_id}/start", None, "start"))
    assert footprint(game_id) == after


def test_a_challenge_decision_twice_with_one_key_is_applied_once(host, guest):
    from games.engine import Pending

    game_id = table(host, guest)
    state = build_state(
        [["R1", "G3"], ["B4", "B5", "Y6"]], top="W+4", discard=["R5"], color="blue", current=1
    )
    state.pending = Pending("challenge", 1, amount=4, accused=0, guilty=False)
    put_state(game_id, state)
    body = {"version": footprint(game_id).version, "challenge": False}
    first = keyed(guest, f"/games/{game_id}/challenge", body, "decide")
    assert first.status_code == 200, first.json()
    after = footprint(game_id)
    same_answer(first, keyed(guest, f"/games/{game_id}/challenge", body, "decide"))
    assert footprint(game_id) == after
    assert first.json()["game"]["seats"][1]["card_count"] == 7


def signup(client: APIClient, name: str, key: str, address: str = "203.0.113.7") -> Any:
    return client.post(
        API + "/players", {"name": name}, format="json", headers={KEY: key}, REMOTE_ADDR=address
    )


def test_a_signup_repeated_with_its_key_never_hands_out_the_first_token(anonymous, db):
    first = signup(anonymous, "Ann", "signup-1")
    assert first.status_code == 201, first.json()
    # Anyone repeating the key and body from the same address (a shared NAT, a proxy
    # log) gets a player of their own, never the first player's token.
    again = signup(APIClient(), "Ann", "signup-1")
    assert again.status_code == 201, again.json()
    assert again.json()["token"] != first.json()["token"]
    assert again.json()["id"] != first.json()["id"]
    assert Player.objects.count() == 2


def test_no_stored_answer_holds_a_token(anonymous, host, db):
    tokens = [signup(anonymous, f"P{n}", f"signup-{n}").json()["token"] for n in range(3)]
    keyed(host, "/games", {"max_players": 2}, "create")
    stored = json.dumps(list(IdempotencyRecord.objects.values_list("body", flat=True)))
    assert IdempotencyRecord.objects.filter(player__isnull=True).count() == 0
    assert not any(token in stored for token in tokens)
    assert IdempotencyRecord.objects.count() == 1  # the game's answer is still kept


def test_a_token_from_a_repeated_signup_works(anonymous, db):
    signup(anonymous, "Ann", "signup")
    token = signup(anonymous, "Ann", "signup").json()["token"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    assert client.get(API + "/players/me").json()["name"] == "Ann"


# -- a different body ----------------------------------------------------------------------


def test_the_same_key_with_another_move_is_a_422_and_changes_nothing(host, guest):
    game_id = table(host, guest)
    version = footprint(game_id).version
    first = keyed(host, f"/games/{game_id}/moves", {"version": version, "action": "draw"}, "k")
    assert first.status_code == 200, first.json()
    after = footprint(game_id)
    other = {"version": after.version, "action": "play", "card": R1}
    response = keyed(host, f"/games/{game_id}/moves", other, "k")
    assert_error(response, 422, "idempotency_key_reused")
    assert footprint(game_id) == after


def test_the_same_key_with_another_game_body_is_a_422(host):
    keyed(host, "/games", {"max_players": 2}, "create")
    response = keyed(host, "/games", {"max_players": 3}, "create")
    assert_error(response, 422, "idempotency_key_reused")
    assert Game.objects.count() == 1


def test_keys_are_per_player(host, guest):
    game_id = new_game(host, max_players=3)
    first = keyed(host, f"/games/{game_id}/bots", {"strategy": "random"}, "shared")
    assert first.status_code == 201, first.json()
    joined = keyed(guest, f"/games/{game_id}/join", None, "shared")
    assert joined.status_code == 200, joined.json()
    assert joined.json()["you"]["seat"] == 2
    assert Seat.objects.filter(game_id=game_id).count() == 3


def test_a_different_key_acts_again(host):
    keyed(host, "/games", {"max_players": 2}, "one")
    keyed(host, "/games", {"max_players": 2}, "two")
    assert Game.objects.count() == 2


# -- errors are answers too ------------------------------------------------------------------


def test_a_stale_version_answer_is_replayed_as_it_was(host, guest):
    game_id = table(host, guest)
    version = footprint(game_id).version
    body = {"version": version - 1, "action": "play", "card": R1}
    first = keyed(host, f"/games/{game_id}/moves", body, "stale")
    assert_error(first, 409, "stale_version")
    assert host.move(game_id, version, action="play", card=R1).status_code == 200
    after = footprint(game_id)
    again = keyed(host, f"/games/{game_id}/moves", body, "stale")
    same_answer(first, again)
    assert again.json()["error"]["details"]["version"] == version
    assert footprint(game_id) == after


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"action": "play", "card": 79}, 422, "illegal_move"),
        ({"action": "pass"}, 422, "illegal_move"),
        ({"action": "play", "card": 108}, 400, "invalid_request"),
        ({"action": "fly"}, 400, "invalid_request"),
    ],
)
def test_a_rejected_move_is_replayed_and_a_different_retry_with_its_key_is_a_422(
    host, guest, body, status, code
):
    game_id = table(host, guest)
    version = footprint(game_id).version
    first = keyed(host, f"/games/{game_id}/moves", {"version": version, **body}, "bad")
    assert_error(first, status, code)
    same_answer(first, keyed(host, f"/games/{game_id}/moves", {"version": version, **body}, "bad"))
    retry = {"version": version, "action": "play", "card": R1}
    assert_error(
        keyed(host, f"/games/{game_id}/moves", retry, "bad"), 422, "idempotency_key_reused"
    )
    assert footprint(game_id).version == version


def test_a_forbidden_answer_is_replayed(host, guest, outsider):
    game_id = new_game(host)
    first = keyed(guest, f"/games/{game_id}/start", None, "start")
    assert_error(first, 403, "forbidden")
    same_answer(first, keyed(guest, f"/games/{game_id}/start", None, "start"))


def test_a_game_full_answer_is_replayed_even_after_a_seat_is_freed(host, guest, outsider):
    game_id = new_game(host)
    guest.post(f"/games/{game_id}/join")
    first = keyed(outsider, f"/games/{game_id}/join", None, "join")
    assert_error(first, 409, "game_full")
    guest.post(f"/games/{game_id}/leave")
    again = keyed(outsider, f"/games/{game_id}/join", None, "join")
    same_answer(first, again)
    assert outsider.get(f"/games/{game_id}").json()["you"] is None


@pytest.mark.parametrize(
    ("path", "bad", "good"),
    [
        ("/games", {"max_players": 1}, {"max_players": 2}),
        ("/games", {"rules": {"stackin": True}}, {"rules": {"stacking": True}}),
        ("/games/GAME/moves", {"action": "draw"}, "DRAW_WITH_VERSION"),
        ("/games/GAME/moves", {"version": "1", "action": "draw"}, "DRAW_WITH_VERSION"),
        ("/games/GAME/challenge", {"challenge": True}, "ACCEPT_WITH_VERSION"),
        ("/games/GAME/bots", {"strategy": "genius"}, {"strategy": "random"}),
    ],
    ids=[
        "out of range max_players",
        "misspelt rule",
        "move without version",
        "move with version as a string",
        "challenge without version",
        "unknown bot strategy",
    ],
)
def test_a_validation_error_is_an_answer_its_key_cannot_be_reused_for_another_body(
    host, guest, path, bad, good
):
    game_id = new_game(host, max_players=4) if path.endswith("/bots") else table(host, guest)
    if good == "DRAW_WITH_VERSION":
        good = {"version": footprint(game_id).version, "action": "draw"}
    elif good == "ACCEPT_WITH_VERSION":
        good = {"version": footprint(game_id).version, "challenge": False}
    url = path.replace("GAME", game_id)
    first = keyed(host, url, bad, "validation")
    assert_error(first, 400, "invalid_request")
    same_answer(first, keyed(host, url, bad, "validation"))
    before = footprint(game_id), Game.objects.count()
    assert_error(keyed(host, url, good, "validation"), 422, "idempotency_key_reused")
    assert (footprint(game_id), Game.objects.count()) == before


def test_a_rate_limited_answer_is_not_stored_so_the_retry_acts(host, monkeypatch):
    from unoservice.throttling import PlayerRateThrottle

    monkeypatch.setattr(PlayerRateThrottle, "rate", "1/min", raising=False)
    host.get("/players/me")
    assert_error(keyed(host, "/games", {}, "later"), 429, "rate_limited")
    monkeypatch.setattr(PlayerRateThrottle, "rate", "100/min", raising=False)
    from django.core.cache import cache

    cache.clear()
    assert keyed(host, "/games", {}, "later").status_code == 201


# -- the key itself ------------------------------------------------------------------------


def test_a_key_of_256_characters_is_a_400(host):
    response = keyed(host, "/games", {}, "k" * 256)
    assert_error(response, 400, "invalid_request")
    assert Game.objects.count() == 0


def test_a_key_of_255_characters_is_fine(host):
    first = keyed(host, "/games", {}, "k" * 255)
    assert first.status_code == 201, first.json()
    same_answer(first, keyed(host, "/games", {}, "k" * 255))
    assert Game.objects.count() == 1


def test_an_empty_key_is_a_400(host):
    assert_error(keyed(host, "/games", {}, ""), 400, "invalid_request")
    assert Game.objects.count() == 0


def test_a_key_too_long_is_a_400_for_creating_players_too(anonymous, db):
    response = anonymous.post(
        API + "/players", {"name": "Ann"}, format="json", headers={KEY: "x" * 300}
    )
    assert_error(response, 400, "invalid_request")
    assert Player.objects.count() == 0


def test_a_key_too_long_on_a_move_changes_nothing(host, guest):
    game_id = table(host, guest)
    before = footprint(game_id)
    body = {"version": before.version, "action": "draw"}
    assert_error(keyed(host, f"/games/{game_id}/moves", body, "m" * 1000), 400, "invalid_request")
    assert footprint(game_id) == before


def test_a_key_is_forgotten_after_24_hours(host):
    first = keyed(host, "/games", {"max_players": 2}, "daily")
    assert first.status_code == 201
    IdempotencyRecord.objects.update(created_at=timezone.now() - dt.timedelta(hours=25))
    again = keyed(host, "/games", {"max_players": 2}, "daily")
    assert again.status_code == 201
    assert again.json()["id"] != first.json()["id"]
    assert Game.objects.count() == 2


def test_the_hourly_purge_drops_records_older_than_24_hours_and_keeps_the_rest(host):
    keyed(host, "/games", {"max_players": 2}, "old")
    keyed(host, "/games", {"max_players": 2}, "recent")
    IdempotencyRecord.objects.filter(key="old").update(
        created_at=timezone.now() - dt.timedelta(hours=25)
    )
    IdempotencyRecord.objects.filter(key="recent").update(
        created_at=timezone.now() - dt.timedelta(hours=23)
    )
    assert tasks.purge_idempotency_records() == 1
    assert list(IdempotencyRecord.objects.values_list("key", flat=True)) == ["recent"]


def test_the_records_belong_to_the_idempotency_app_and_its_own_table():
    assert IdempotencyRecord._meta.app_label == "idempotency"
    assert IdempotencyRecord._meta.db_table == "idempotency_idempotencyrecord"


def test_beat_runs_the_purge_every_hour():
    from django.conf import settings

    entry = settings.CELERY_BEAT_SCHEDULE["purge-idempotency-records"]
    assert entry["task"] == tasks.purge_idempotency_records.name
    assert entry["schedule"] == 3600.0


def test_a_key_is_remembered_for_nearly_24_hours(host):
    first = keyed(host, "/games", {"max_players": 2}, "daily")
    IdempotencyRecord.objects.update(created_at=timezone.now() - dt.timedelta(hours=23))
    same_answer(first, keyed(host, "/games", {"max_players": 2}, "daily"))
    assert Game.objects.count() == 1


def test_a_stored_rejection_whose_message_echoes_a_nul_character_still_answers(host, guest):
    game_id = table(host, guest)
    before = footprint(game_id)
    raw = json.dumps({"version": before.version, "action": "draw", "\x00": 1})
    response = host.client.post(
        f"{API}/games/{game_id}/moves",
        data=raw,
        content_type="application/json",
        headers={KEY: "nul"},
    )
    assert_error(response, 400, "invalid_request")
    assert footprint(game_id) == before


# -- in use ------------------------------------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_key_still_being_processed_is_a_409_idempotency_key_in_use(host, guest):
    game_id = table(host, guest)
    before = footprint(game_id)
    lock_id = idempotency._advisory_lock_id(str(host.player.pk), "busy")
    held, release = threading.Event(), threading.Event()

    def hold_the_key() -> None:
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_xact_lock(%s)", [lock_id])
                held.set()
                release.wait(10)
        finally:
            connection.close()

    holder = threading.Thread(target=hold_the_key)
    holder.start()
    try:
        assert held.wait(10)
        body = {"version": before.version, "action": "draw"}
        response = keyed(host, f"/games/{game_id}/moves", body, "busy")
        assert_error(response, 409, "idempotency_key_in_use")
        assert footprint(game_id) == before
    finally:
        release.set()
        holder.join(10)
    retry = keyed(
        host, f"/games/{game_id}/moves", {"version": before.version, "action": "draw"}, "busy"
    )
    assert retry.status_code == 200, retry.json()
