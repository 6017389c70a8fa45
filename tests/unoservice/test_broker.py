"""unoservice/broker.py: the development broker's messages appear in the queue whole."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kombu import Connection, Exchange, Queue
from kombu.simple import SimpleQueue

from unoservice import broker
from unoservice.env import broker_config

QUEUE = Queue("celery", Exchange("celery", type="direct"), routing_key="celery")
# Large enough that writing it takes more than one write call's worth of time.
PAYLOAD = {"cards": "x" * 1_000_000}


@contextmanager
def open_queue(url: str, transport: str | None, options: dict[str, Any]) -> Iterator[SimpleQueue]:
    connection = Connection(url, transport=transport, transport_options=options)
    with connection as conn, conn.SimpleQueue(QUEUE) as simple:
        yield simple


def queued_files(folder: Path) -> list[str]:
    return [name for name in os.listdir(folder) if name.partition(".")[2] == "celery.msg"]


def test_a_message_is_in_no_queue_until_it_is_whole(tmp_path, monkeypatch, fresh_broker_state):
    url, transport, options = broker_config(None, tmp_path / "var")
    folder = Path(options["data_folder_out"])
    seen_while_writing: list[list[str]] = []
    drafts: list[int] = []
    real_replace = os.replace

    def replace(source: str, target: str) -> None:
        # The moment before the message takes its name: a worker listing the
        # folder now must find nothing it would read.
        seen_while_writing.append(queued_files(folder))
        drafts.append(Path(source).stat().st_size)
        real_replace(source, target)

    monkeypatch.setattr(broker.os, "replace", replace)
    with open_queue(url, transport, options) as simple:
        simple.put(PAYLOAD)
        assert seen_while_writing == [[]]
        assert drafts[0] > len(PAYLOAD["cards"])
        assert len(queued_files(folder)) == 1
        message = simple.get(timeout=5)
        message.ack()
    assert message.payload == PAYLOAD
    assert not [name for name in os.listdir(folder) if name.endswith(".draft")]


def test_a_draft_is_never_taken_for_a_message(tmp_path, fresh_broker_state):
    url, transport, options = broker_config(None, tmp_path / "var")
    folder = Path(options["data_folder_out"])
    (folder / ".1_abc.celery.msg.draft").write_text('{"half": ')
    with open_queue(url, transport, options) as simple:
        assert simple.qsize() == 0
        simple.put({"n": 1})
        message = simple.get(timeout=5)
        message.ack()
    assert message.payload == {"n": 1}
