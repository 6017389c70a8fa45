"""WSGI entry point (gunicorn unoservice.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "unoservice.settings")

application = get_wsgi_application()
