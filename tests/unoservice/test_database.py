"""The database the suite runs on."""

import pytest
from django.db import connection


@pytest.mark.postgres
@pytest.mark.django_db
def test_the_default_database_is_postgresql():
    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("SELECT version()")
        (version,) = cursor.fetchone()
    assert version.startswith("PostgreSQL")


@pytest.mark.django_db
def test_the_default_database_runs_queries_in_transactions():
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)
    assert connection.in_atomic_block  # pytest-django wraps each test in a transaction
