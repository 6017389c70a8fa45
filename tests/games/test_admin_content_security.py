"""The admin's pages run only the service's own scripts: a Content-Security-Policy
without inline scripts, and pages that have none."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from unoservice.security import ADMIN_POLICY, HEADER

SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script>", re.S)
INLINE_HANDLER = re.compile(r"\son[a-z]+\s*=", re.I)


def directive(policy: str, name: str) -> str:
    return next(part.strip() for part in policy.split(";") if part.strip().startswith(name))


def assert_runs_no_inline_script(page: str) -> None:
    for attributes, body in SCRIPT.findall(page):
        # Data for a script (json_script) is not run; every other script is a file.
        if 'type="application/json"' in attributes:
            continue
        assert "src=" in attributes, attributes
        assert not body.strip(), attributes
    assert not INLINE_HANDLER.search(page)


def test_the_admin_policy_allows_no_inline_script():
    scripts = directive(ADMIN_POLICY, "script-src")
    assert scripts == "script-src 'self'"
    assert "frame-ancestors 'none'" in ADMIN_POLICY


def test_the_login_page_carries_the_policy(client):
    answer = client.get(reverse("admin:login"))
    assert answer[HEADER] == ADMIN_POLICY


@pytest.mark.django_db
def test_the_pages_of_a_game_carry_the_policy_and_run_no_inline_script(
    admin_client, finished, running
):
    pages = [
        reverse("admin:index"),
        reverse("admin:games_game_changelist"),
        reverse("admin:games_game_change", args=[running.pk]),  # followed live
        reverse("admin:games_game_change", args=[finished.pk]),
        reverse("admin:games_game_replay", args=[finished.pk]) + "?seq=3",
        reverse("admin:games_game_overview"),
        reverse("admin:games_game_abandon", args=[running.pk]),
        reverse("admin:players_player_change", args=[running.host_id]),
    ]
    for url in pages:
        answer = admin_client.get(url)
        assert answer.status_code == 200, url
        assert answer[HEADER] == ADMIN_POLICY, url
        assert_runs_no_inline_script(answer.content.decode())


def test_the_api_docs_keep_their_own_policy(client):
    answer = client.get("/api/v1/docs/")
    assert answer.status_code == 200
    assert "worker-src 'self' blob:" in answer[HEADER]


@pytest.mark.parametrize("url", ["/api/v1/docs/", "/api/v1/redoc/"])
def test_the_api_docs_run_no_inline_script(client, url):
    answer = client.get(url)
    assert answer.status_code == 200
    directives = dict(d.strip().split(" ", 1) for d in answer[HEADER].split(";"))
    assert directives["script-src"] == "'self'"
    assert_runs_no_inline_script(answer.content.decode())
