"""UNO game service: Django project package.

The Celery app is imported here so that ``@shared_task`` binds to it whenever
Django starts (web process, worker, beat or management command).
"""

from .celery import app as celery_app

__all__ = ("celery_app",)
