"""The players app's Celery tasks, where the worker looks for them: push
notifications (`players.push.tasks`), the mail of email codes and the purge of
expired sessions and codes."""

from celery import shared_task

from players import sessions
from players.accounts import email_codes
from players.accounts.mail import email_code_mail
from players.push.tasks import push_deliver, push_retry

__all__ = ["email_code_mail", "purge_expired_sessions", "push_deliver", "push_retry"]


@shared_task(name="players.purge_expired_sessions")
def purge_expired_sessions() -> int:
    """Drop the sessions unused for SESSION_IDLE_DAYS and the email codes past their
    time (beat runs this hourly)."""
    return sessions.sessions_purge() + email_codes.codes_purge()
