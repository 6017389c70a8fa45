"""HTTPS: one setting turns on what Django's deployment checklist asks for (redirect,
HSTS, secure cookies, the proxy's X-Forwarded-Proto), and off, plain HTTP works."""

from __future__ import annotations

import json
import os
import secrets
import subprocess

import pytest
from django.conf import settings
from django.test import Client, override_settings

from tests.support import run_python
from unoservice.env import https_settings

YEAR = 31_536_000
HSTS = "max-age=31536000; includeSubDomains; preload"
HTTPS_WARNINGS = ("security.W004", "security.W008", "security.W012", "security.W016")
# Logging in is not what is tested here: no need for most of a second of PBKDF2.
QUICK_HASHES = override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"])


def run_in_a_deployment(https: str, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    """`args` run by Python in a fresh process with a deployment's environment."""
    env = {
        key: value
        for key, value in os.environ.items()
        # Whatever this shell sets for these must not decide the outcome.
        if key not in {"HTTPS", "HSTS_SECONDS", "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS"}
    }
    env.update(
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(48),  # 64 characters
        ALLOWED_HOSTS="uno.example.com",
        HTTPS=https,
        **extra,
    )
    return run_python(*args, env=env)


def test_the_deployment_checks_find_no_issues_with_https_on():
    done = run_in_a_deployment("true", "manage.py", "check", "--deploy", "--fail-level", "WARNING")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues" in done.stdout


def test_the_deployment_checks_warn_about_plain_http_with_https_off():
    done = run_in_a_deployment("false", "manage.py", "check", "--deploy", "--fail-level", "WARNING")
    assert done.returncode != 0
    for warning in HTTPS_WARNINGS:
        assert warning in done.stderr, warning


def test_the_settings_apply_the_https_flag_and_hsts_seconds_from_the_environment():
    probe = (
        "import django, json; django.setup(); from django.conf import settings as s; "
        "from unoservice.env import https_settings; "
        "print(json.dumps({k: getattr(s, k) for k in https_settings(True, 1)}))"
    )
    done = run_in_a_deployment("true", "-c", probe, HSTS_SECONDS="600")
    assert done.returncode == 0, done.stderr
    applied = json.loads(done.stdout.strip().splitlines()[-1])
    expected = json.loads(json.dumps(https_settings(True, 600)))  # tuples as lists
    assert applied == expected


def test_these_tests_run_with_the_settings_that_settings_py_applied():
    expected = https_settings(settings.HTTPS, settings.SECURE_HSTS_SECONDS)
    assert {key: getattr(settings, key) for key in expected} == expected


@pytest.mark.django_db
@QUICK_HASHES
@override_settings(**https_settings(False, YEAR))
def test_with_https_off_plain_http_works_without_redirect_or_secure_cookies(django_user_model):
    browser = Client()
    page = browser.get("/admin/login/")
    assert page.status_code == 200
    assert "Strict-Transport-Security" not in page
    assert not page.cookies["csrftoken"]["secure"]
    django_user_model.objects.create_superuser("boss", password="a long staff password")
    login = browser.post("/admin/login/", {"username": "boss", "password": "a long staff password"})
    assert login.status_code == 302
    assert not login.cookies["sessionid"]["secure"]


@override_settings(**https_settings(True, YEAR))
def test_with_https_on_a_plain_http_request_is_redirected_to_https():
    answer = Client().get("/api/v1/players/me?x=1")
    assert answer.status_code == 301
    assert answer["Location"] == "https://testserver/api/v1/players/me?x=1"
    assert Client().get("/admin/login/").status_code == 301


@pytest.mark.django_db
@override_settings(**https_settings(True, YEAR))
def test_with_https_on_health_probes_over_plain_http_are_answered_not_redirected():
    answer = Client().get("/healthz")
    assert answer.status_code == 200
    assert "Strict-Transport-Security" not in answer  # never over plain HTTP


@pytest.mark.django_db
@QUICK_HASHES
@override_settings(**https_settings(True, YEAR))
def test_with_https_on_a_request_the_proxy_marks_https_gets_hsts_and_secure_cookies(
    django_user_model,
):
    browser = Client(headers={"X-Forwarded-Proto": "https"})
    health = browser.get("/healthz")
    assert health.status_code == 200
    assert health["Strict-Transport-Security"] == HSTS
    page = browser.get("/admin/login/")
    assert page.status_code == 200
    assert page["Strict-Transport-Security"] == HSTS
    assert page.cookies["csrftoken"]["secure"]
    django_user_model.objects.create_superuser("boss", password="a long staff password")
    login = browser.post("/admin/login/", {"username": "boss", "password": "a long staff password"})
    assert login.status_code == 302
    assert login.cookies["sessionid"]["secure"]
