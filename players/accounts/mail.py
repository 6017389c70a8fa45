"""The mail that carries an email code, sent by the worker through Django's email
backend (the console in development, SMTP at EMAIL_URL in production)."""

from __future__ import annotations

import smtplib

from celery import shared_task
from django.conf import settings
from django.core.mail import EmailMessage
from django.db import transaction

from players.accounts.email_codes import CODE_MINUTES


def code_message(*, email: str, code: str) -> EmailMessage:
    """The mail: the code in its subject too, where phones show it without opening."""
    body = (
        f"Your UNO code is {code}\n\n"
        f"Type it in the app within {CODE_MINUTES} minutes. It signs in, links this "
        "address to your account, or confirms what you asked for.\n\n"
        "If you did not ask for a code, ignore this mail: nothing happens without it.\n"
    )
    return EmailMessage(
        subject=f"{code} is your UNO code",
        body=body,
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[email],
    )


@shared_task(
    name="players.email_code_mail",
    autoretry_for=(OSError, smtplib.SMTPException),
    max_retries=3,
    retry_backoff=5,
)
def email_code_mail(email: str, code: str | None) -> bool:
    """Mail `code` to `email`; None: nothing is sent (a code asked for an address no
    account has, without a player to link it to: the request was answered as any
    other, and the address's owner is not bothered). Returns whether a mail went."""
    if code is None:
        return False
    code_message(email=email, code=code).send()
    return True


def send_code_later(email: str, code: str | None) -> None:
    """Hand the mail to the worker once the current transaction commits. A broker
    that cannot take it is logged (`robust`), not raised: the code stands, and a new
    one can be asked for a minute later."""
    transaction.on_commit(
        lambda: email_code_mail.apply_async((email, code), retry=False), robust=True
    )
