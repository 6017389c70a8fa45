"""One-time codes sent by email: what proves a person reads an address.

A code is `CODE_DIGITS` digits, good for `CODE_MINUTES` and `MAX_TRIES` wrong tries,
and used up by the right one. Only a keyed hash of it is stored (HMAC with the
service's secret key), so that a copy of the table does not give the codes away:
a six-digit code's plain hash would be read back by trying a million."""

from __future__ import annotations

import datetime as dt
import secrets

from django.core.exceptions import ValidationError
from django.core.validators import EmailValidator
from django.db import transaction
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac

from players.models import EmailCode
from unoservice.errors import InvalidRequest

CODE_DIGITS = 6
CODE_MINUTES = 10
MAX_TRIES = 5
MAX_EMAIL_LENGTH = 254

_validate_email = EmailValidator()


def normalized_email(raw: object) -> str:
    """The address as it is matched: trimmed and in lower case (mail providers treat
    addresses without regard to case, and players type them both ways); a valid
    address of at most 254 characters, else `InvalidRequest`."""
    email = raw.strip().lower() if isinstance(raw, str) else ""
    try:
        if not email or len(email) > MAX_EMAIL_LENGTH:
            raise ValidationError("too long")
        _validate_email(email)
    except ValidationError:
        message = f"a valid email address of at most {MAX_EMAIL_LENGTH} characters"
        raise InvalidRequest(
            f"email must be {message}", details={"fields": {"email": [message]}}
        ) from None
    return email


def is_code_shaped(raw: object) -> bool:
    return isinstance(raw, str) and len(raw) == CODE_DIGITS and raw.isascii() and raw.isdigit()


def _hash(email: str, code: str) -> str:
    return salted_hmac("players.email_code", f"{email}\n{code}", algorithm="sha256").hexdigest()


def code_issue(*, email: str) -> str:
    """A new code for `email`, replacing the one it had; returned to be mailed, the
    only time it is seen. Locks the address's row (an upsert)."""
    code = f"{secrets.randbelow(10**CODE_DIGITS):0{CODE_DIGITS}d}"
    now = timezone.now()
    EmailCode.objects.update_or_create(
        email=email,
        defaults={
            "code_hash": _hash(email, code),
            "created_at": now,
            "expires_at": now + dt.timedelta(minutes=CODE_MINUTES),
            "tries": 0,
        },
    )
    return code


def code_check(*, email: str, code: str) -> bool:
    """Whether `code` is the live code of `email`: a right one is used up, a wrong
    one counts a try (after `MAX_TRIES` the code is dead). Locks the address's code
    row, so that tries at once are each counted."""
    with transaction.atomic():
        row = (
            EmailCode.objects.select_for_update()
            .filter(email=email, expires_at__gt=timezone.now(), tries__lt=MAX_TRIES)
            .first()
        )
        if row is None:
            return False
        if is_code_shaped(code) and constant_time_compare(row.code_hash, _hash(email, code)):
            row.delete()
            return True
        row.tries += 1
        row.save(update_fields=["tries"])
        return False


def codes_purge() -> int:
    """Delete the codes past their time; returns how many went."""
    deleted, _ = EmailCode.objects.filter(expires_at__lte=timezone.now()).delete()
    return deleted
