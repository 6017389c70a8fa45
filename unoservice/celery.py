"""Celery application: the worker runs bot turns, beat sweeps overdue turn timers."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "unoservice.settings")

app = Celery("unoservice")
# Every setting named CELERY_<NAME> in Django settings configures Celery's <name>.
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# The request id carried into tasks, and each task's line and metrics (signals).
from unoservice import observability  # noqa: E402,F401
