"""What the friends and blocks tests share: the lobby notes the services sent, kept
here instead of going to PostgreSQL's channel."""

from __future__ import annotations

from typing import Any

import pytest

from unoservice import notices


@pytest.fixture
def notes(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, dict[str, Any]]]:
    """(player id, event, data) of each note sent for a client, in order (the notes
    for the lobby streams alone, whose events begin with "_", left out)."""
    sent: list[tuple[str, str, dict[str, Any]]] = []

    def keep(player_id: object, event: str, data: dict[str, Any]) -> None:
        if not event.startswith("_"):
            sent.append((str(player_id), event, data))

    monkeypatch.setattr(notices, "note", keep)
    return sent
