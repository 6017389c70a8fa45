"""Friends and an invite end to end, all over HTTP from outside: the production
server, a real Celery worker and a local push service (tests/push_service.py). Two
players become friends by code, one invites the other to a private game, the invite
arrives on the lobby stream and as a push, the friend joins, and each sees the other
in the friends list (docs/api.md, "Friends and blocks", "Inviting friends", "The
lobby stream", "Push notifications")."""

from __future__ import annotations

from typing import Any

from tests.games.live.test_stream import Reader
from tests.games.test_notifications_end_to_end import pushes_to
from tests.push_service import PushService
from tests.served import Client, Served
from tests.support import wait_until
from tests.workers import WITH_A_WORKER

pytestmark = WITH_A_WORKER

# Generous: the machine may be busy, and a push goes through the broker and a worker.
EVENT_SECONDS = 20.0
PUSH_SECONDS = 20.0


class LobbyStream(Reader):
    """A player's lobby stream over the served server, read on a thread, past its
    opening (`retry`, then `hello`)."""

    def __init__(self, served: Served, player: Client) -> None:
        super().__init__(
            f"{served.url}/api/v1/players/me/stream",
            {"Authorization": f"Bearer {player.token}", "Accept": "text/event-stream"},
        )
        opening = self.next(EVENT_SECONDS)
        assert opening is not None
        assert opening.retry == 2000
        hello = self.next(EVENT_SECONDS)
        assert hello is not None
        assert hello.event == "hello", hello

    def until(self, event: str) -> dict[str, Any]:
        """The data of the next `event` (the events before it passed over)."""
        while True:
            message = self.next(EVENT_SECONDS)
            assert message is not None, "the lobby stream ended"
            if message.event == event:
                return message.json()  # type: ignore[no-any-return]


def me(player: Client) -> dict[str, str]:
    answer = player.get("/players/me")
    assert answer.status == 200, answer.body
    return answer.body  # type: ignore[no-any-return]


def friends_of(player: Client) -> dict[str, Any]:
    answer = player.get("/players/me/friends")
    assert answer.status == 200, answer.body
    return answer.body  # type: ignore[no-any-return]


def presence_of(player: Client, friend_id: str) -> dict[str, Any]:
    """How `player`'s friends list shows `friend_id`: their presence."""
    [friend] = [f for f in friends_of(player)["friends"] if f["player"]["id"] == friend_id]
    return friend["presence"]  # type: ignore[no-any-return]


def test_friends_by_code_invite_pushed_and_streamed_the_friend_joins_and_both_see_each_other(
    served_with_push: Served, push_service: PushService
) -> None:
    ann = served_with_push.client().sign_up("Ann")
    bob = served_with_push.client().sign_up("Bob")
    ann_id, bob_id = me(ann)["id"], me(bob)["id"]
    device = push_service.device_body()
    subscription = device["subscription"]["endpoint"].rsplit("/", 1)[-1]
    assert bob.post("/players/me/devices", device).status == 201
    anns_lobby = LobbyStream(served_with_push, ann)
    bobs_lobby = LobbyStream(served_with_push, bob)

    # Bob asks Ann by the code her friends list shows; she hears it and accepts, and
    # he hears that.
    code = friends_of(ann)["code"]
    asked = bob.post("/players/me/friend-requests", {"code": code})
    assert asked.status == 201, asked.body
    assert (asked.body["player"]["id"], asked.body["status"]) == (ann_id, "requested")
    assert anns_lobby.until("friend_request")["from"]["id"] == bob_id
    accepted = ann.post(f"/players/me/friend-requests/{bob_id}/accept")
    assert accepted.status == 200, accepted.body
    assert accepted.body["status"] == "friends"
    assert bobs_lobby.until("friend_accepted")["friend"]["id"] == ann_id

    # Both are online, with their streams open, and in no game yet.
    assert presence_of(ann, bob_id) == {"status": "online", "game": None}
    assert presence_of(bob, ann_id) == {"status": "online", "game": None}

    # Ann invites Bob to a private game: his lobby stream says so, and so does his
    # phone, the stream open or not.
    created = ann.post("/games", {"max_players": 2, "visibility": "private"})
    assert created.status == 201, created.body
    game_id = created.body["id"]
    invited = ann.post(f"/games/{game_id}/invites", {"player": bob_id})
    assert invited.status == 201, invited.body
    note = bobs_lobby.until("game_invite")
    assert (note["game"], note["by"]["id"]) == (game_id, ann_id)
    assert note["code"] == created.body["invite_code"]
    wait_until(lambda: pushes_to(push_service, subscription), "Bob's push", PUSH_SECONDS)
    [pushed] = pushes_to(push_service, subscription)
    assert pushed.status == 201
    assert pushed.payload is not None
    assert (pushed.payload["kind"], pushed.payload["game"]) == ("game_invite", game_id)
    assert pushed.payload["by"]["id"] == ann_id
    assert "code" not in pushed.payload

    # Cid, whom Ann blocked, is told there is no game with that code: the same 404,
    # word for word, as a code that opens nothing.
    cid = served_with_push.client().sign_up("Cid")
    assert ann.request("PUT", f"/players/me/blocks/{me(cid)['id']}").status == 204
    blocked = cid.post("/games/join", {"code": created.body["invite_code"]})
    unknown = cid.post("/games/join", {"code": "ZZZZ-ZZZZ"})
    assert (blocked.status, unknown.status) == (404, 404)
    assert blocked.body == unknown.body

    # Bob joins by id, without the code; Ann's stream hears her friend sit down there.
    joined = bob.post(f"/games/{game_id}/join")
    assert joined.status == 200, joined.body
    assert bobs_lobby.until("match_found")["game"] == game_id
    seated = anns_lobby.until("friend_in_game")
    assert (seated["friend"]["id"], seated["game"]) == (bob_id, game_id)

    # Each sees the other in the game, named, in the friends list.
    assert presence_of(ann, bob_id) == {"status": "in_game", "game": game_id}
    assert presence_of(bob, ann_id) == {"status": "in_game", "game": game_id}
    anns_lobby.close()
    bobs_lobby.close()
