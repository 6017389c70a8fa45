"""The stream under a plain WSGI server (tests, ``runserver``): only its opening,
which an EventSource reopens after `retry`, with the same checks as the live one."""

from __future__ import annotations

from io import BytesIO
from typing import Any

import pytest

from games.models import Game
from tests.factories import assert_error, make_persona, start_game
from unoclient import sse
from unoclient.sse import Message

pytestmark = pytest.mark.django_db


def frames(response: Any) -> list[Message]:
    return list(sse.messages(BytesIO(response.content)))  # type: ignore[arg-type]


def test_the_opening_is_retry_then_the_callers_view(host, guest, outsider):
    game_id = str(start_game(host, guest, outsider, make_persona("Fourth"), seed=3).pk)
    response = guest.client.get(f"/api/v1/games/{game_id}/stream")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/event-stream")
    assert response["Cache-Control"] == "no-cache"
    messages = frames(response)
    assert messages[0].retry == 2000
    assert messages[1].event == "game"
    assert messages[1].json() == guest.get(f"/games/{game_id}").json()
    assert messages[1].id == str(Game.objects.get(pk=game_id).last_seq)


def test_the_opening_resumes_with_the_events_after_the_last_event_id(host, guest, outsider):
    game_id = str(start_game(host, guest, outsider, make_persona("Fourth"), seed=3).pk)
    response = guest.client.get(f"/api/v1/games/{game_id}/stream", HTTP_LAST_EVENT_ID="2")
    messages = [m for m in frames(response) if m.event != "message"]
    last_seq = Game.objects.get(pk=game_id).last_seq
    assert [int(m.id) for m in messages[:-1]] == list(range(3, last_seq + 1))
    assert messages[-1].event == "game"


def test_the_fallback_refuses_as_the_live_stream_does(host, guest, outsider, anonymous):
    game_id = str(start_game(host, guest, outsider, make_persona("Fourth"), seed=3).pk)
    assert_error(anonymous.get(f"/api/v1/games/{game_id}/stream"), 401, "not_authenticated")
    assert_error(guest.client.get("/api/v1/games/nope/stream"), 404, "not_found")
    bad = guest.client.get(f"/api/v1/games/{game_id}/stream", {"after": "1.0"})
    assert_error(bad, 400, "invalid_request")
