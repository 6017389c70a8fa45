"""What the account tests share: mail sent at once (the worker's job in the service)
into Django's test outbox, and the codes read back from it."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail as django_mail
from django.core.cache import cache

from players.accounts import limits, mail


class Mailbox:
    """The mails the service sent in this test."""

    def codes_to(self, email: str) -> list[str]:
        return [
            re.search(r"\b(\d{6})\b", message.subject).group(1)  # type: ignore[union-attr]
            for message in django_mail.outbox
            if message.to == [email]
        ]

    def last_code_to(self, email: str) -> str:
        codes = self.codes_to(email)
        assert codes, f"no code was mailed to {email}"
        return codes[-1]

    def __len__(self) -> int:
        return len(django_mail.outbox)


@pytest.fixture
def mailbox(monkeypatch: pytest.MonkeyPatch) -> Mailbox:
    monkeypatch.setattr(
        mail, "send_code_later", lambda email, code: mail.email_code_mail(email, code)
    )
    cache.clear()
    return Mailbox()


def ask_code(client: Any, email: str, *, a_minute_later: bool = True) -> Any:
    """Ask for a code to `email`; `a_minute_later`: as if the last mail to it went a
    minute ago (the once-a-minute limit has tests of its own)."""
    if a_minute_later:
        cache.delete(limits.mail_interval_key(email.strip().lower()))
    return client.post("/api/v1/players/email-codes", {"email": email}, format="json")
