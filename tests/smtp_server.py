"""A real SMTP server for the tests that read the codes the service mails (aiosmtpd,
on 127.0.0.1): the service's worker sends to it as to any mail server."""

from __future__ import annotations

import email
import re
import threading
from collections.abc import Iterator
from email.message import Message
from typing import Any

import pytest
from aiosmtpd.controller import Controller

from tests.support import free_port, wait_until


class MailServer:
    """What the server received, message by message."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.lock = threading.Lock()
        self.port = 0

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        with self.lock:
            self.messages.append(email.message_from_bytes(envelope.content))
        return "250 Message accepted for delivery"

    def codes_to(self, address: str) -> list[str]:
        with self.lock:
            subjects = [str(m["Subject"]) for m in self.messages if address in str(m["To"])]
        return [found.group(1) for s in subjects if (found := re.search(r"\b(\d{6})\b", s))]

    def next_code_to(self, address: str, *, after: int, seconds: float = 30) -> str:
        """The code of the first mail to `address` beyond the `after` it had."""
        wait_until(
            lambda: len(self.codes_to(address)) > after, f"a code mailed to {address}", seconds
        )
        return self.codes_to(address)[after]


@pytest.fixture
def mail_server() -> Iterator[MailServer]:
    server = MailServer()
    server.port = free_port()
    controller = Controller(server, hostname="127.0.0.1", port=server.port)
    controller.start()
    try:
        yield server
    finally:
        controller.stop()
