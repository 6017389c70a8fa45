"""The player kept between runs: a token file per server, readable by its owner
alone, made at the first sign-up, reused after, replaced on asking; the token is
never shown."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.unoclient.fakes import FakeApi
from unoclient.api import ApiError
from unoclient.identity import config_dir, link_email, sign_in, sign_in_by_email, token_file


def signing_up(names: list[str]) -> Any:
    def answer(body: Any) -> Any:
        names.append(body["name"])
        return {"id": f"p{len(names)}", "name": body["name"], "token": f"secret-{len(names)}"}

    return answer


def server_with_players() -> tuple[FakeApi, list[str]]:
    names: list[str] = []
    api = FakeApi({("POST", "/players"): signing_up(names)})
    api.token = None  # type: ignore[assignment]
    api.answers[("GET", "/players/me")] = lambda _: {"id": f"p{len(names)}", "name": names[-1]}
    return api, names


def test_the_config_directory_follows_xdg_or_defaults_to_dot_config():
    assert config_dir({"XDG_CONFIG_HOME": "/x"}) == Path("/x/unoclient")
    assert config_dir({}) == Path.home() / ".config" / "unoclient"


def test_the_first_sign_up_is_saved_readable_by_its_owner_alone(config_home):
    api, _names = server_with_players()
    me = sign_in(api, name="Ann", directory=config_home)  # type: ignore[arg-type]
    assert me == {"id": "p1", "name": "Ann", "returning": False}
    path = token_file(config_home, "http://fake")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text())["token"] == "secret-1"
    assert api.token == "secret-1"
    assert "secret" not in str(me)


def test_the_next_run_reuses_the_saved_player(config_home):
    first, _ = server_with_players()
    sign_in(first, name="Ann", directory=config_home)  # type: ignore[arg-type]
    again, names = server_with_players()
    names.append("Ann")
    me = sign_in(again, name="Bob", directory=config_home)  # type: ignore[arg-type]
    assert me == {"id": "p1", "name": "Ann", "returning": True}
    assert again.token == "secret-1"
    assert [c[:2] for c in again.calls] == [("GET", "/players/me")]


def test_new_player_signs_up_afresh_and_replaces_the_saved_one(config_home):
    api, _names = server_with_players()
    sign_in(api, name="Ann", directory=config_home)  # type: ignore[arg-type]
    path = token_file(config_home, "http://fake")
    path.chmod(0o644)
    me = sign_in(api, name="Bob", directory=config_home, fresh=True)  # type: ignore[arg-type]
    assert me["name"] == "Bob"
    assert not me["returning"]
    assert json.loads(path.read_text())["token"] == "secret-2"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_token_the_server_no_longer_knows_is_replaced(config_home):
    api, names = server_with_players()
    sign_in(api, name="Ann", directory=config_home)  # type: ignore[arg-type]
    api.answers[("GET", "/players/me")] = ApiError(401, "unauthenticated", "bad token", {})
    me = sign_in(api, name="Ann", directory=config_home)  # type: ignore[arg-type]
    assert me["id"] == "p2"
    assert names == ["Ann", "Ann"]


def test_each_server_has_its_own_file(config_home):
    assert token_file(config_home, "http://a:8000") != token_file(config_home, "http://a:8001")
    assert token_file(config_home, "http://a:8000/") == token_file(config_home, "http://a:8000")


def test_signing_in_by_email_asks_a_code_without_a_token_and_saves_the_new_session(config_home):
    api = FakeApi(
        {
            ("POST", "/players/email-codes"): {"email": "ann@example.com", "expires_in": 600},
            ("POST", "/players/sign-in"): lambda body: {
                "id": "p7",
                "name": "Ann",
                "token": f"secret-for-{body['code']}",
                "session": "s1",
            },
        }
    )
    asked: list[str] = []

    def ask(prompt: str) -> str:
        asked.append(prompt)
        return " 123456 \n"

    me = sign_in_by_email(api, email="ann@example.com", directory=config_home, ask=ask)  # type: ignore[arg-type]

    assert me == {"id": "p7", "name": "Ann", "returning": True}
    assert "ann@example.com" in asked[0]
    (_, _, sign_in_body) = api.calls[1]
    assert sign_in_body["code"] == "123456"
    assert sign_in_body["device"].startswith("Terminal on ")
    assert api.token == "secret-for-123456"
    saved = json.loads(token_file(config_home, "http://fake").read_text())
    assert saved["token"] == "secret-for-123456"
    assert stat.S_IMODE(token_file(config_home, "http://fake").stat().st_mode) == 0o600


def test_a_wrong_code_saves_nothing(config_home):
    api = FakeApi(
        {
            ("POST", "/players/email-codes"): {},
            ("POST", "/players/sign-in"): ApiError(403, "credentials_refused", "wrong", {}),
        }
    )
    with pytest.raises(ApiError, match="credentials_refused"):
        sign_in_by_email(api, email="a@example.com", directory=config_home, ask=lambda _: "1")  # type: ignore[arg-type]
    assert not token_file(config_home, "http://fake").exists()


def test_keeping_the_player_links_the_address_with_the_saved_token(config_home):
    api, _names = server_with_players()
    api.answers[("POST", "/players/email-codes")] = {}
    api.answers[("POST", "/players/me/identities")] = lambda body: {
        "kind": "email",
        "email": body["email"],
    }
    linked = link_email(
        api,  # type: ignore[arg-type]
        email="ann@example.com",
        name="Ann",
        directory=config_home,
        ask=lambda _: "654321",
    )
    assert linked == {"kind": "email", "email": "ann@example.com"}
    assert api.calls[-1] == (
        "POST",
        "/players/me/identities",
        {"email": "ann@example.com", "code": "654321"},
    )
    assert api.token == "secret-1"
