"""Inviting friends to a game: ``POST /games/{id}/invites`` (docs/api.md, "Inviting
friends"): who may invite whom, what the friend is told (a lobby-stream note and a
push), and what the invite lets them do (see and join a private game without its
code)."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

import pytest
from django.core.cache import cache

from games import services
from games.api.invites import GameInviteThrottle
from games.talk.models import GameInvite
from players.models import player_tag
from tests.factories import (
    BlockFactory,
    Persona,
    assert_error,
    make_friends,
    make_persona,
    seat_table,
    start_game,
)
from tests.push_service import PushService, PushTasks
from unoservice import notices, presence

pytestmark = pytest.mark.django_db


def new_game(host: Persona, **body: Any) -> dict[str, Any]:
    response = host.post("/games", {"max_players": 4, **body})
    assert response.status_code == 201, response.json()
    return response.json()  # type: ignore[no-any-return]


def invite(persona: Persona, game_id: Any, friend: Persona | str, **headers: str) -> Any:
    player = friend if isinstance(friend, str) else str(friend.player.pk)
    return persona.post(f"/games/{game_id}/invites", {"player": player}, **headers)


def ref(persona: Persona) -> dict[str, str]:
    player = persona.player
    return {"id": str(player.pk), "name": player.name, "tag": player_tag(player.pk)}


@pytest.fixture
def notes(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, dict[str, Any]]]:
    """The lobby-stream notes sent (player id, event, data), kept here instead."""
    sent: list[tuple[str, str, dict[str, Any]]] = []
    monkeypatch.setattr(
        notices, "note", lambda player_id, event, data: sent.append((str(player_id), event, data))
    )
    return sent


@pytest.fixture
def friends(host: Persona, guest: Persona) -> None:
    make_friends(host, guest)


# -- inviting ---------------------------------------------------------------------------


def test_a_seated_player_invites_a_friend_and_the_friend_is_told(host, guest, friends, notes):
    game = new_game(host)

    response = invite(host, game["id"], guest)

    assert response.status_code == 201, response.json()
    body = response.json()
    assert set(body) == {"game", "player", "by", "created_at"}
    assert body["game"] == game["id"]
    assert body["player"] == ref(guest)
    assert body["by"] == ref(host)
    assert dt.datetime.fromisoformat(body["created_at"])
    stored = GameInvite.objects.get(game_id=game["id"])
    assert (stored.player_id, stored.by_id) == (guest.player.pk, host.player.pk)
    assert notes == [
        (
            str(guest.player.pk),
            "game_invite",
            {
                "game": game["id"],
                "by": ref(host),
                "code": None,
                "players": 1,
                "max_players": 4,
            },
        )
    ]


def test_the_note_of_a_private_game_carries_its_invite_code(host, guest, friends, notes):
    game = new_game(host, visibility="private")

    assert invite(host, game["id"], guest).status_code == 201

    assert notes[0][2]["code"] == game["invite_code"] is not None


def test_any_seated_player_may_invite_and_the_count_of_seats_is_told(host, guest, outsider, notes):
    make_friends(guest, outsider)
    game = new_game(host)
    assert guest.post(f"/games/{game['id']}/join").status_code == 200

    assert invite(guest, game["id"], outsider).status_code == 201

    assert notes[-1][2]["players"] == 2
    assert notes[-1][2]["by"] == ref(guest)


def test_inviting_again_answers_200_and_tells_again_at_most_once_a_minute(
    host, guest, friends, notes
):
    game = new_game(host)
    first = invite(host, game["id"], guest).json()

    again = invite(host, game["id"], guest)

    assert again.status_code == 200
    assert again.json() == first
    assert len(notes) == 1
    assert GameInvite.objects.filter(game_id=game["id"]).count() == 1

    # A minute on, it is told again.
    GameInvite.objects.filter(game_id=game["id"]).update(
        created_at=dt.datetime.fromisoformat(first["created_at"]) - dt.timedelta(minutes=2)
    )
    later = invite(host, game["id"], guest)
    assert later.status_code == 200
    assert later.json()["created_at"] > first["created_at"]
    assert len(notes) == 2


# -- refusals ---------------------------------------------------------------------------


def test_a_player_who_is_not_a_friend_is_403_not_friends(host, outsider, notes):
    game = new_game(host)
    assert_error(invite(host, game["id"], outsider), 403, "not_friends")
    assert_error(invite(host, game["id"], str(uuid.uuid4())), 403, "not_friends")
    assert notes == []
    assert not GameInvite.objects.exists()


def test_a_friend_request_not_answered_is_no_friendship(host, guest):
    from tests.factories import FriendRequestFactory

    FriendRequestFactory(sender=host.player, receiver=guest.player)
    game = new_game(host)
    assert_error(invite(host, game["id"], guest), 403, "not_friends")


def test_inviting_yourself_is_a_400(host):
    game = new_game(host)
    assert_error(invite(host, game["id"], host), 400, "invalid_request")


def test_a_friend_already_seated_is_409_already_seated(host, guest, friends):
    game = new_game(host)
    guest.post(f"/games/{game['id']}/join")
    assert_error(invite(host, game["id"], guest), 409, "already_seated")


def test_a_game_that_started_is_409_wrong_phase(host, guest, outsider, friends):
    make_friends(host, outsider)
    game = start_game(host, guest, seed=5)
    assert_error(invite(host, game.pk, outsider), 409, "wrong_phase")


def test_a_full_game_is_409_game_full(host, guest, outsider):
    make_friends(host, outsider)
    game = seat_table(host, guest)  # two seats, both taken
    assert_error(invite(host, game.pk, outsider), 409, "game_full")


def test_a_player_not_seated_in_a_public_game_is_403_forbidden(host, guest, outsider, friends):
    make_friends(outsider, guest)
    game = new_game(host)
    assert_error(invite(outsider, game["id"], guest), 403, "forbidden")


def test_a_private_game_the_caller_may_not_see_is_404(host, guest, outsider):
    make_friends(outsider, guest)
    game = new_game(host, visibility="private")
    unknown = invite(outsider, uuid.uuid4(), guest)
    assert_error(unknown, 404, "not_found")
    hidden = invite(outsider, game["id"], guest)
    assert_error(hidden, 404, "not_found")
    assert hidden.json() == unknown.json()
    assert_error(invite(outsider, "not-a-game", guest), 404, "not_found")


def test_a_game_invites_at_most_50_players(host, guest, friends):
    game = new_game(host)
    others = [make_persona(f"F{n}").player for n in range(services.MAX_INVITES_PER_GAME)]
    GameInvite.objects.bulk_create(
        GameInvite(game_id=game["id"], player=other, by=host.player) for other in others
    )
    error = assert_error(invite(host, game["id"], guest), 409, "too_many_invites")
    assert error["details"] == {"limit": 50}
    # One invited already may still be invited again.
    make_friends(host, others[0])
    assert invite(host, game["id"], str(others[0].pk)).status_code == 200


def test_invites_are_rate_limited_per_player_every_attempt_counted(
    host, guest, friends, monkeypatch
):
    monkeypatch.setattr(GameInviteThrottle, "THROTTLE_RATES", {"game_invite": "3/min"})
    game = new_game(host)
    answers = [invite(host, game["id"], guest).status_code for _ in range(2)]
    answers.append(invite(host, game["id"], str(uuid.uuid4())).status_code)  # refused, counted
    assert answers == [201, 200, 403]
    refused = invite(host, game["id"], guest)
    assert_error(refused, 429, "rate_limited")
    assert int(refused["Retry-After"]) >= 1
    # Other requests of the player are not held back.
    assert host.get(f"/games/{game['id']}").status_code == 200


@pytest.mark.parametrize(
    "body",
    [
        None,
        {},
        [],
        "player",
        {"player": 5},
        {"player": None},
        {"player": "not-an-id"},
        {"player": ["9a4d0c3b-51e2-4b7a-8f6d-0e2c4a1b9d77"]},
        {"player": "9a4d0c3b-51e2-4b7a-8f6d-0e2c4a1b9d77", "note": "hi"},
    ],
)
def test_a_malformed_body_is_a_400(host, body):
    game = new_game(host)
    assert_error(host.post(f"/games/{game['id']}/invites", body), 400, "invalid_request")


def test_a_malformed_body_for_a_game_that_does_not_exist_is_its_404(host):
    assert_error(host.post(f"/games/{uuid.uuid4()}/invites", {"x": 1}), 404, "not_found")


def test_a_body_that_is_not_json_is_a_415(host):
    game = new_game(host)
    response = host.client.post(
        f"/api/v1/games/{game['id']}/invites", "player=x", content_type="text/plain"
    )
    assert_error(response, 415, "unsupported_media_type")


def test_inviting_needs_a_token(host, anonymous):
    game = new_game(host)
    response = anonymous.post(f"/api/v1/games/{game['id']}/invites", {}, format="json")
    assert_error(response, 401, "not_authenticated")


def test_the_same_idempotency_key_gets_the_first_answer_again(host, guest, friends, notes):
    game = new_game(host)
    first = invite(host, game["id"], guest, **{"Idempotency-Key": "inv-1"})
    again = invite(host, game["id"], guest, **{"Idempotency-Key": "inv-1"})
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json() == first.json()
    assert len(notes) == 1


# -- what an invite lets the friend do ---------------------------------------------------


def test_an_invited_friend_sees_a_private_game_and_joins_it_by_id_without_its_code(
    host, guest, outsider, friends
):
    game = new_game(host, visibility="private")
    assert_error(guest.get(f"/games/{game['id']}"), 404, "not_found")
    assert_error(guest.post(f"/games/{game['id']}/join"), 404, "not_found")

    assert invite(host, game["id"], guest).status_code == 201

    seen = guest.get(f"/games/{game['id']}")
    assert seen.status_code == 200
    assert seen.json()["invite_code"] is None  # a spectator's view, as a code holder's
    assert guest.get(f"/games/{game['id']}/events", after=0).status_code == 200
    joined = guest.post(f"/games/{game['id']}/join")
    assert joined.status_code == 200, joined.json()
    assert joined.json()["you"]["seat"] == 1
    assert joined.json()["invite_code"] == game["invite_code"]
    # Nobody else gains anything.
    assert_error(outsider.get(f"/games/{game['id']}"), 404, "not_found")
    assert_error(outsider.post(f"/games/{game['id']}/join"), 404, "not_found")


def test_an_invite_does_not_let_the_friend_act_on_the_game_as_a_player(host, guest, friends):
    game = new_game(host, visibility="private")
    invite(host, game["id"], guest)
    assert_error(guest.post(f"/games/{game['id']}/start"), 404, "not_found")
    assert_error(guest.post(f"/games/{game['id']}/leave"), 404, "not_found")


def test_a_friend_blocked_by_another_player_at_the_table_cannot_join_though_invited(
    host, guest, outsider, friends
):
    game = new_game(host, visibility="private")
    outsider_joined = services.game_join(
        game_id=game["id"], player=outsider.player, invited=True
    ).game
    BlockFactory(blocker=outsider.player, blocked=guest.player)
    assert invite(host, game["id"], guest).status_code == 201
    unknown = guest.post(f"/games/{uuid.uuid4()}/join")
    blocked = guest.post(f"/games/{outsider_joined.pk}/join")
    assert_error(blocked, 404, "not_found")
    assert blocked.json() == unknown.json()


# -- the push ---------------------------------------------------------------------------


def subscribe(persona: Persona, service: PushService) -> None:
    response = persona.post("/players/me/devices", service.device_body())
    assert response.status_code == 201, response.json()


def invite_and_deliver(
    host: Persona, guest: Persona, push_tasks: PushTasks, capture: Any
) -> tuple[str, list[Any]]:
    """Invite `guest` to a new game of `host`'s, run what commits (in a test's
    transaction, on-commit callbacks run only so), then the push tasks it sent: the
    game's id and what each task answered (devices that accepted)."""
    game = new_game(host)
    with capture(execute=True):
        assert invite(host, game["id"], guest).status_code == 201
    return game["id"], push_tasks.run_all()


def test_an_invite_is_pushed_to_the_friends_devices(
    host, guest, friends, push_service, push_tasks, django_capture_on_commit_callbacks
):
    subscribe(guest, push_service)

    game_id, _ = invite_and_deliver(host, guest, push_tasks, django_capture_on_commit_callbacks)

    [received] = push_service.wait_for(1)
    assert received.payload is not None
    assert received.payload["kind"] == "game_invite"
    assert received.payload["game"] == game_id
    assert received.payload["path"] == f"/play/games/{game_id}"
    assert received.payload["text"] == f"Host#{player_tag(host.player.pk)} invites you to a game"
    assert received.payload["by"] == ref(host)
    assert "code" not in received.payload


def test_no_push_to_a_friend_who_turned_game_invite_off(
    host, guest, friends, push_service, push_tasks, django_capture_on_commit_callbacks
):
    subscribe(guest, push_service)
    settings = guest.patch("/players/me/notifications", {"game_invite": False})
    assert settings.status_code == 200, settings.json()
    assert settings.json()["game_invite"] is False

    _, results = invite_and_deliver(host, guest, push_tasks, django_capture_on_commit_callbacks)

    assert results == [0]
    assert push_service.received() == []


def test_a_friend_who_follows_the_lobby_from_a_stream_is_pushed_too(
    host, guest, friends, push_service, push_tasks, django_capture_on_commit_callbacks, notes
):
    subscribe(guest, push_service)
    cache.set(presence.follow_key(presence.LOBBY, guest.player.pk), 1, 60)
    assert presence.follows(guest.player.pk, presence.LOBBY)

    game_id, results = invite_and_deliver(
        host, guest, push_tasks, django_capture_on_commit_callbacks
    )

    assert [event for _, event, _ in notes] == ["game_invite"]  # the stream tells them
    assert results == [1]  # and so does their device
    [received] = push_service.wait_for(1)
    assert received.payload is not None
    assert received.payload["kind"] == "game_invite"
    assert received.payload["game"] == game_id


def test_no_push_is_queued_when_push_is_not_configured(
    host, guest, friends, push_tasks, settings, django_capture_on_commit_callbacks
):
    settings.VAPID_PUBLIC_KEY = settings.VAPID_PRIVATE_KEY = ""
    settings.FCM_CREDENTIALS_FILE = ""
    invite_and_deliver(host, guest, push_tasks, django_capture_on_commit_callbacks)
    assert push_tasks.sent == []


def test_a_game_invite_setting_is_one_of_the_kinds(guest):
    assert guest.get("/players/me/notifications").json()["game_invite"] is True
    assert "game_invite" in guest.get("/push/config").json()["kinds"]
