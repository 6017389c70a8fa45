"""The players app's Celery tasks, where the worker looks for them: push
notifications (`players.push.tasks`) and the purge of expired sessions."""

from celery import shared_task

from players import sessions
from players.push.tasks import push_deliver, push_retry

__all__ = ["purge_expired_sessions", "push_deliver", "push_retry"]


@shared_task(name="players.purge_expired_sessions")
def purge_expired_sessions() -> int:
    """Drop the sessions unused for SESSION_IDLE_DAYS (beat runs this hourly)."""
    return sessions.sessions_purge()
