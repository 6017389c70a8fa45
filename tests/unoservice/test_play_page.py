"""The web client's page: /play/ and every path under it answer the same file, with a
policy that lets it load and reach only the service itself."""

from __future__ import annotations

import re

import pytest
from django.contrib.staticfiles import finders

from tests.support import ROOT
from unoservice.security import HEADER, PLAY_POLICY

WEB = ROOT / "web"
LOADED = re.compile(r'(?:src|href)="([^"]+)"')
IMPORTED = re.compile(r'from "([^"]+)"')


@pytest.mark.parametrize(
    "path", ["/play/", "/play/games/c4e2a9d1-7b35-4f08-a6c3-91d0e5b27f44", "/play/join/K7MQ-X2RP"]
)
def test_every_path_of_the_client_answers_its_one_page(client, path):
    answer = client.get(path)
    assert answer.status_code == 200
    assert answer["Content-Type"] == "text/html; charset=utf-8"
    assert answer.content == (WEB / "index.html").read_bytes()
    assert answer[HEADER] == PLAY_POLICY


def test_the_page_is_not_posted_to(client):
    assert client.post("/play/").status_code == 405


def test_the_services_root_leads_to_the_web_client(client):
    answer = client.get("/")
    assert answer.status_code == 302
    assert answer["Location"] == "/play/"
    assert client.head("/").status_code == 302
    assert client.post("/").status_code == 405


def test_the_policy_runs_only_the_services_own_scripts_and_reaches_only_the_service():
    directives = dict(part.strip().split(" ", 1) for part in PLAY_POLICY.split(";"))
    assert directives["script-src"] == "'self'"
    assert directives["style-src"] == "'self'"
    assert directives["connect-src"] == "'self'"


def test_the_page_loads_only_files_the_service_serves():
    loaded = LOADED.findall((WEB / "index.html").read_text())
    assert loaded
    for url in loaded:
        if url.startswith("data:") or url == "/play/":
            continue
        assert url.startswith("/static/play/"), url
        assert finders.find(url.removeprefix("/static/")), url


def test_every_module_imports_only_modules_of_the_client():
    for module in WEB.glob("*.js"):
        for name in IMPORTED.findall(module.read_text()):
            assert name.startswith("./"), (module.name, name)
            assert (WEB / name).is_file(), (module.name, name)
        assert not re.search(r"https?://", module.read_text()), module.name


def test_the_service_worker_is_served_under_play_so_that_it_covers_the_clients_pages(client):
    answer = client.get("/play/sw.js")
    assert answer.status_code == 200
    assert answer["Content-Type"] == "text/javascript; charset=utf-8"
    assert answer["Cache-Control"] == "no-cache"
    assert answer.content == (WEB / "sw.js").read_bytes()
    assert answer[HEADER] == PLAY_POLICY
    directives = dict(part.strip().split(" ", 1) for part in PLAY_POLICY.split(";"))
    assert directives["worker-src"] == "'self'"
