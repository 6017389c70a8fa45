from __future__ import annotations

import pytest
from kombu.transport import filesystem
from kombu.transport.virtual import BrokerState


@pytest.fixture
def fresh_broker_state(monkeypatch: pytest.MonkeyPatch) -> None:
    """kombu keeps the file-system broker's declared queues in one state per process,
    so a second broker folder in the same process would be taken as declared already;
    a test that opens its own folder starts from none."""
    monkeypatch.setattr(filesystem.Transport, "global_state", BrokerState())
