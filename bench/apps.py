"""The `bench` Django app: installed only with the BENCH_FLOOR setting on (see
unoservice/settings.py), for the tables of the load benchmark's floor view."""

from django.apps import AppConfig


class BenchConfig(AppConfig):
    name = "bench"
    label = "bench"
    verbose_name = "Load benchmark floor"
    default_auto_field = "django.db.models.BigAutoField"
