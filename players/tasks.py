"""The players app's Celery tasks, where the worker looks for them: push
notifications (`players.push.tasks`)."""

from players.push.tasks import push_deliver, push_retry

__all__ = ["push_deliver", "push_retry"]
