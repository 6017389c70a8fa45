"""A move's request and a view's each make at most one round trip to Redis, the shared
cache of production (`unoservice.cache_trip`): every rate-limit count, the presence
write of the player seen and the presence read of the game in one script.

Round trips are counted where redis-py sends: one send is one round trip, a pipeline
or a script included."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from typing import Any

import pytest
import redis
import time_machine
from django.test import override_settings
from django.utils import timezone
from redis.connection import AbstractConnection

from games.live import reads
from tests.factories import Persona, start_game
from unoservice import presence
from unoservice.throttling import PlayerRateThrottle

pytestmark = [pytest.mark.django_db, pytest.mark.redis]

RATE = 5


# What redis-py sends once per new connection, not per request.
HANDSHAKE = ("HELLO", "CLIENT", "SELECT", "AUTH")


class Sends:
    """Every command (or pipeline) redis-py sends, by its first word, but for the
    handshake of a new connection."""

    def __init__(self) -> None:
        self.commands: list[str] = []

    def __len__(self) -> int:
        return len(self.commands)


@pytest.fixture
def sends(monkeypatch: pytest.MonkeyPatch) -> Iterator[Sends]:
    """The tests' Redis as the shared cache, with every send to it recorded."""
    from tests.served import shared_cache_url

    url = shared_cache_url()
    redis.Redis.from_url(url).flushdb()
    recorded = Sends()
    original = AbstractConnection.send_packed_command

    def send(self: AbstractConnection, command: Any, check_health: bool = True) -> None:
        first = bytes(command[0] if isinstance(command, list) else command)
        word = first.split(b"\r\n")[2].decode(errors="replace")
        if word.upper() not in HANDSHAKE:
            recorded.commands.append(word)
        original(self, command, check_health)

    monkeypatch.setattr(AbstractConnection, "send_packed_command", send)
    cache = {"default": {"BACKEND": "unoservice.redis_cache.RedisCache", "LOCATION": url}}
    with override_settings(CACHES=cache):
        presence.forget()
        yield recorded
        redis.Redis.from_url(url).flushdb()
    presence.forget()


def a_turn(host: Persona, guest: Persona) -> tuple[Persona, str, dict[str, Any]]:
    game_id = str(start_game(host, guest, seed=3).pk)
    view = host.get(f"/games/{game_id}").json()
    actor = host if view["current_seat"] == 0 else guest
    return actor, game_id, actor.get(f"/games/{game_id}").json()


def test_a_move_makes_one_round_trip_to_redis(host: Persona, guest: Persona, sends: Sends) -> None:
    actor, game_id, view = a_turn(host, guest)
    move = next(m for m in view["you"]["legal_moves"] if m["action"] in ("play", "draw"))
    sends.commands.clear()

    answer = actor.move(game_id, view["version"], **move)

    assert answer.status_code == 200, answer.json()
    assert len(sends) == 1, sends.commands
    assert answer.json()["game"]["seats"][view["you"]["seat"]]["online"] is True


def test_a_view_makes_one_round_trip_whether_or_not_the_presence_write_is_due(
    host: Persona, guest: Persona, sends: Sends
) -> None:
    _, game_id, _ = a_turn(host, guest)
    now = timezone.now()
    for later in (0, presence.REFRESH_SECONDS + 1):
        with time_machine.travel(now + dt.timedelta(seconds=later), tick=False):
            sends.commands.clear()
            view = guest.get(f"/games/{game_id}")
            assert view.status_code == 200
            assert len(sends) == 1, sends.commands
    assert [seat["online"] for seat in view.json()["seats"]] == [True, True]


def test_the_first_view_of_a_game_in_a_process_reads_its_presence_on_its_own(
    host: Persona, guest: Persona, sends: Sends
) -> None:
    game_id = str(start_game(host, guest, seed=3).pk)
    presence.forget()  # this process never read the game: its seats are not known yet
    sends.commands.clear()
    view = host.get(f"/games/{game_id}")
    assert view.status_code == 200
    assert len(sends) == 2, sends.commands
    assert [seat["online"] for seat in view.json()["seats"]] == [True, False]


def test_the_rate_counted_in_that_one_round_trip_still_refuses_past_it(
    host: Persona, guest: Persona, sends: Sends, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, game_id, _ = a_turn(host, guest)
    monkeypatch.setattr(PlayerRateThrottle, "THROTTLE_RATES", {"player": f"{RATE}/min"})
    with time_machine.travel(timezone.now() + dt.timedelta(minutes=2), tick=False):
        codes = [guest.get(f"/games/{game_id}").status_code for _ in range(RATE + 2)]
        assert codes == [200] * RATE + [429, 429]
        assert host.get(f"/games/{game_id}").status_code == 200


def test_a_view_read_answered_beside_django_makes_one_round_trip_too(
    host: Persona, guest: Persona, sends: Sends, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, game_id, _ = a_turn(host, guest)  # this process has read the game: it knows the seats
    monkeypatch.setattr(PlayerRateThrottle, "THROTTLE_RATES", {"player": f"{RATE}/min"})
    address = {"REMOTE_ADDR": "127.0.0.1"}
    with time_machine.travel(timezone.now() + dt.timedelta(minutes=2), tick=False):
        answers = []
        for _ in range(RATE + 1):
            sends.commands.clear()
            answers.append(reads.read(game_id, f"Bearer {guest.token}", None, address))
            assert len(sends) == 1, sends.commands
    assert [answer[1] for answer in answers if answer] == [200] * RATE + [429]
    view = json.loads(answers[0][2])
    assert [seat["online"] for seat in view["seats"]] == [True, True]


def test_streams_opening_together_are_counted_and_marked_online_in_one_round_trip(
    host: Persona, guest: Persona, sends: Sends
) -> None:
    from django.core.cache import cache

    from games.live import access, admission
    from unoservice import stream_caps

    game_id = str(start_game(host, guest, seed=3).pk)
    opening = [
        access.Asked(
            game_id, {"authorization": f"Bearer {p.token}"}, {}, {"REMOTE_ADDR": "10.1.1.1"}
        )
        for p in (host, guest, host)
    ]
    warm_up = admission.check(opening[:1])  # Redis learns the script
    stream_caps.release(a.place for a in warm_up if isinstance(a, admission.Admitted))
    presence.forget()
    sends.commands.clear()

    answers = admission.check(opening)

    assert all(isinstance(a, admission.Admitted) for a in answers), answers
    # The rates and the presence writes in one script; the places in one pipeline.
    assert sends.commands == ["EVALSHA", "EVALSHA"]
    assert [cache.get(presence.player_key(str(p.player.pk))) for p in (host, guest)] == [1, 1]
    stream_caps.release(a.place for a in answers if isinstance(a, admission.Admitted))
