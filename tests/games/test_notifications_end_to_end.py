"""Push notifications end to end: the production server, a real Celery worker and a
local push service that speaks the Web Push protocol (it checks every request's
VAPID signature and decrypts its payload with the subscription's private key:
tests/push_service.py). Two humans play; Bob's browser is subscribed."""

from __future__ import annotations

import time
from typing import Any

import redis

from tests.games.live.test_stream import Reader
from tests.push_service import NOTIFY_AFTER_SECONDS, PushRequest, PushService
from tests.served import Answer, Client, Served, shared_cache_url
from tests.support import wait_until
from tests.workers import WITH_A_WORKER

pytestmark = WITH_A_WORKER


def view(player: Client, game_id: str) -> dict[str, Any]:
    answer = player.get(f"/games/{game_id}")
    assert answer.status == 200, answer.body
    return answer.body  # type: ignore[no-any-return]


def actor(game: dict[str, Any]) -> int:
    return game["pending"]["seat"] if game["pending"] else game["current_seat"]  # type: ignore[no-any-return]


def send_a_move(player: Client, game_id: str) -> tuple[int, Answer]:
    """`player`, who is to act, reads their view and sends a legal move with the
    version they read: a play if they have one (calling UNO with their second last
    card), else what ends their turn or settles a decision. The version read and
    the answer."""
    game = view(player, game_id)
    moves = game["you"]["legal_moves"]
    move = next((m for m in moves if m["action"] == "play"), None)
    move = move or next(m for m in moves if m["action"] not in ("call_uno", "catch_uno"))
    if move["action"] in ("challenge", "accept"):
        body = {"version": game["version"], "challenge": move["action"] == "challenge"}
        return game["version"], player.post(f"/games/{game_id}/challenge", body)
    if move["action"] == "play" and len(game["you"]["hand"]) == 2:
        move = {**move, "uno": True}
    return game["version"], player.post(f"/games/{game_id}/moves", move)


def move_once(player: Client, game_id: str) -> dict[str, Any]:
    """One move of `player`, who is to act (`send_a_move`); the game after it."""
    _, answer = send_a_move(player, game_id)
    assert answer.status == 200, answer.body
    return answer.body["game"]  # type: ignore[no-any-return]


def hand_turn_to(seat: int, players: list[Client], game_id: str) -> float:
    """Play until the turn is `seat`'s, handed over by the other player's move; the
    time.time() of that move's answer."""
    game = view(players[0], game_id)
    handed_at = 0.0
    for _ in range(200):
        to_act = actor(game)
        if to_act == seat and handed_at:
            return handed_at
        game = move_once(players[to_act], game_id)
        handed_at = time.time() if to_act != seat else 0.0
    raise AssertionError("the turn never came round")


def pushes_to(push_service: PushService, subscription: str) -> list[PushRequest]:
    return [r for r in push_service.received() if r.subscription == subscription]


def follows(game_id: str, player_id: str) -> bool:
    found = redis.Redis.from_url(shared_cache_url()).keys(f"*presence:follow:{game_id}:{player_id}")
    return bool(found)


def test_a_player_away_is_pushed_their_turn_and_one_at_the_table_only_when_they_let_it_sit(
    served_with_push: Served, push_service: PushService
) -> None:
    ann = served_with_push.client().sign_up("Ann")
    bob = served_with_push.client().sign_up("Bob")
    bob_id = bob.get("/players/me").body["id"]
    device = push_service.device_body()
    subscription = device["subscription"]["endpoint"].rsplit("/", 1)[-1]
    assert bob.post("/players/me/devices", device).status == 201
    game_id = ann.post("/games", {"max_players": 2}).body["id"]
    assert bob.post(f"/games/{game_id}/join").status == 200
    assert ann.post(f"/games/{game_id}/start").status == 200
    players = [ann, bob]

    # The game started: Bob, who did not start it, is told (and of his turn, if the
    # deal gave him the first).
    first = 2 if actor(view(ann, game_id)) == 1 else 1
    wait_until(lambda: len(pushes_to(push_service, subscription)) == first, "the start", 15)
    kinds = [p.payload["kind"] for p in pushes_to(push_service, subscription) if p.payload]
    assert kinds == ["match_found", "your_turn"][:first]

    # Ann moves; Bob, with no stream open, is pushed his turn.
    hand_turn_to(1, players, game_id)
    wait_until(lambda: len(pushes_to(push_service, subscription)) > first, "Bob's turn", 15)
    pushed = pushes_to(push_service, subscription)[first]
    assert pushed.status == 201
    assert pushed.payload is not None
    assert pushed.payload["kind"] == "your_turn"
    assert (pushed.payload["game"], pushed.payload["seat"]) == (game_id, 1)
    assert pushed.payload["text"].startswith(("Ann#", "Round ")), pushed.payload["text"]
    assert pushed.payload["text"].endswith(": your turn")
    assert pushed.topic == game_id.replace("-", "")

    # With his stream open, his next turn is pushed only once he lets it sit.
    stream = Reader(
        f"{served_with_push.url}/api/v1/games/{game_id}/stream",
        {"Authorization": f"Bearer {bob.token}", "Accept": "text/event-stream"},
    )
    stream.until_view()
    wait_until(lambda: follows(game_id, bob_id), "Bob's stream published", 10)
    before = len(pushes_to(push_service, subscription))
    handed_at = hand_turn_to(1, players, game_id)
    time.sleep(NOTIFY_AFTER_SECONDS - 1.5)
    assert len(pushes_to(push_service, subscription)) == before
    wait_until(lambda: len(pushes_to(push_service, subscription)) > before, "the late push", 15)
    late = pushes_to(push_service, subscription)[before]
    assert late.payload is not None
    assert late.payload["kind"] == "your_turn"
    assert late.at - handed_at >= NOTIFY_AFTER_SECONDS
    stream.close()
    wait_until(lambda: not follows(game_id, bob_id), "Bob's stream closed", 10)

    # A 429 with Retry-After is retried, no sooner than it says.
    push_service.answer_next(429, headers={"Retry-After": "2"})
    before = len(pushes_to(push_service, subscription))
    hand_turn_to(1, players, game_id)

    def retried() -> list[PushRequest]:
        since = pushes_to(push_service, subscription)[before:]
        refused = [p for p in since if p.status == 429]
        return [p for p in since if refused and p.payload == refused[0].payload]

    wait_until(lambda: len(retried()) == 2, "the retry", 20)
    refused, accepted = retried()
    assert (refused.status, accepted.status) == (429, 201)
    assert accepted.at - refused.at >= 2

    # A 410 says the subscription is gone: the device goes with it.
    push_service.answer_next(410)
    hand_turn_to(1, players, game_id)
    wait_until(lambda: bob.get("/players/me/devices").body == [], "the device's removal", 15)
    assert [p.status for p in pushes_to(push_service, subscription)][-1] == 410
