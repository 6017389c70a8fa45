"""The limits on what can be guessed or sent: codes mailed per client address and at
most once a minute per email address; wrong codes and passwords per email address
and per client address, counted exactly (`unoservice.throttling.count_attempt`).
Every limit is answered 429 rate_limited, whether the email is known or not."""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.core.cache import cache
from rest_framework.throttling import SimpleRateThrottle

from unoservice.client_address import group_in
from unoservice.errors import RateLimited
from unoservice.throttling import CountedAttempt, FixedWindowThrottle, count_attempt


def _email_ident(email: str) -> str:
    # The cache's keys need not hold the address itself.
    return hashlib.sha256(email.encode()).hexdigest()[:32]


class _ConfiguredRate(FixedWindowThrottle):
    # The configured rates themselves, not whatever replaced the players' (tests and
    # load runs lift those).
    THROTTLE_RATES = SimpleRateThrottle.THROTTLE_RATES


class CodeMailAddressThrottle(_ConfiguredRate):
    """Codes asked for from one client address, whatever the email addresses."""

    scope = "email_code_address"


class SignInEmailThrottle(_ConfiguredRate):
    """Wrong codes and passwords for one email address, from anywhere."""

    scope = "sign_in_email"


class SignInAddressThrottle(_ConfiguredRate):
    """Wrong codes and passwords from one client address, whatever the email."""

    scope = "sign_in_address"


def count_code_mail(*, email: str, meta: Mapping[str, Any]) -> None:
    """Count a request for a code to `email` from the request's address (`meta`):
    `RateLimited` past the address's rate, or when a code was asked for `email`
    less than EMAIL_CODE_INTERVAL_SECONDS ago (exactly: the cache's atomic add)."""
    count_attempt(
        {CodeMailAddressThrottle: group_in(meta)},
        refusal="too many codes asked for from this network; wait before asking again",
    )
    key = mail_interval_key(email)
    interval = settings.EMAIL_CODE_INTERVAL_SECONDS
    if not cache.add(key, time.time() + interval, timeout=interval):
        until = cache.get(key)
        wait = interval if until is None else math.ceil(until - time.time())
        raise RateLimited(
            "a code was sent to this address a moment ago; use it, or wait before "
            "asking for another",
            details={"retry_after": max(1, min(wait, interval))},
        )


def mail_interval_key(email: str) -> str:
    """The cache key that stands while a mail to `email` was sent under a minute ago."""
    return f"email-code-sent:{_email_ident(email)}"


def count_guess(*, email: str, meta: Mapping[str, Any]) -> CountedAttempt:
    """Count an attempt with a code or a password for `email` as a wrong one, per
    email address and then per client address, before it is judged;
    `CountedAttempt.release` takes it back when it was right."""
    return count_attempt(
        {SignInEmailThrottle: _email_ident(email), SignInAddressThrottle: group_in(meta)},
        refusal="too many wrong codes or passwords; wait before trying again",
    )
