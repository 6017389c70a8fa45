"""Deals anyone can check (docs/fairness.md): a game commits to its server seed when it
is created, before any player's seed is taken; every human's client seed enters every
round's seed; nobody reads a running game's seeds anywhere; once it is over the log
reveals them, and the verifier alone redoes the whole game from that log, failing at
the step where any byte was changed."""

from __future__ import annotations

import copy
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from games import notifications, replay, services
from games.engine import fair
from games.models import Game
from players import push
from tests.factories import Persona, assert_error, footprint, play_out, reload
from tests.support import ROOT
from unoclient import verify

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("rate_limits_off")]

HEX64 = re.compile("[0-9a-f]{64}")
HOST_SEED = "4f9a0c77e1d2b3a4c5d6e7f809a1b2c3"
GUEST_SEED = "77310cbead0e5f1a"
# A server seed whose game of 200 points (draws until playable) takes several rounds
# and reshuffles the discards, with these client seeds and the players' moves here.
LONG_GAME_SERVER_SEED = "03" * 32


def created(host: Persona, **settings: Any) -> dict[str, Any]:
    answer = host.post("/games", {"max_players": 3, "target_score": 0, **settings})
    assert answer.status_code == 201, answer.json()
    return dict(answer.json())


def seated_and_started(
    host: Persona, guest: Persona, *, server_seed: str | None = None, **settings: Any
) -> Game:
    """Host, guest and a greedy bot, each human with a seed of their own, started;
    dealt from `server_seed` (and its bot from a fixed seed) when one is given."""
    game_id = created(host, **settings)["id"]
    if server_seed is not None:  # as if drawn so: the whole game is then the same each run
        Game.objects.filter(pk=game_id).update(server_seed=server_seed, seed=1)
    assert guest.post(f"/games/{game_id}/join", {"client_seed": GUEST_SEED}).status_code == 200
    assert host.post(f"/games/{game_id}/bots", {"strategy": "greedy"}).status_code == 201
    started = host.post(f"/games/{game_id}/start", {"client_seed": HOST_SEED})
    assert started.status_code == 200, started.json()
    return reload(game_id)


def finished(
    host: Persona, guest: Persona, *, target_score: int = 0, long_rounds: bool = False
) -> tuple[Game, dict[str, Any]]:
    """A finished game of `seated_and_started`; with `long_rounds`, every draw goes on
    until a card can be played (`draw_until_playable`), which empties the draw pile and
    reshuffles the discards within a round or two."""
    rules = {"draw_until_playable": True} if long_rounds else {}
    seed = LONG_GAME_SERVER_SEED if long_rounds else None
    game = seated_and_started(host, guest, target_score=target_score, rules=rules, server_seed=seed)
    game = play_out(game, {0: host, 1: guest})
    assert game.status == "finished"
    log = host.get(f"/games/{game.pk}/log").json()
    return game, log


# -- the commitment -------------------------------------------------------------------


def test_a_game_commits_to_its_server_seed_when_it_is_created_and_never_changes_it(host, guest):
    view = created(host)
    game = Game.objects.get(pk=view["id"])
    assert view["deal_algorithm"] == "uno-deal/1"
    assert HEX64.fullmatch(game.server_seed)
    assert (
        view["deal_commitment"]
        == hashlib.sha256(b"uno-deal/1\x00" + bytes.fromhex(game.server_seed)).hexdigest()
    )
    # Published to whoever may see the game before they send a seed of their own.
    assert guest.get(f"/games/{game.pk}").json()["deal_commitment"] == view["deal_commitment"]
    assert guest.post(f"/games/{game.pk}/join", {"client_seed": GUEST_SEED}).status_code == 200
    started = host.post(f"/games/{game.pk}/start", {"client_seed": HOST_SEED}).json()
    game = play_out(reload(game), {0: host, 1: guest})
    assert started["deal_commitment"] == view["deal_commitment"]
    assert host.get(f"/games/{game.pk}").json()["deal_commitment"] == view["deal_commitment"]
    assert host.get(f"/games/{game.pk}/log").json()["deal"]["commitment"] == view["deal_commitment"]
    assert reload(game).server_seed == Game.objects.get(pk=view["id"]).server_seed


def test_no_client_seed_is_taken_before_the_commitment_is_published(host):
    # The creation is where the commitment is made: a seed sent with it is refused,
    # and the host sends theirs with the start, having read the commitment.
    refused = host.post("/games", {"max_players": 2, "client_seed": HOST_SEED})
    error = assert_error(refused, 400, "invalid_request")
    assert "client_seed" in error["details"]["fields"]
    assert Game.objects.count() == 0
    view = created(host)
    assert view["you"]["client_seed"] != HOST_SEED  # one made for them, until they send theirs


def test_each_human_s_seed_as_sent_is_in_the_deal_and_shown_to_them_alone(host, guest, outsider):
    game = seated_and_started(host, guest)
    assert game.state["client_seeds"] == [HOST_SEED, GUEST_SEED, ""]
    assert host.get(f"/games/{game.pk}").json()["you"]["client_seed"] == HOST_SEED
    assert guest.get(f"/games/{game.pk}").json()["you"]["client_seed"] == GUEST_SEED
    assert outsider.get(f"/games/{game.pk}").json()["you"] is None
    dealt = replay.round_seeds(game)
    assert dealt == [fair.round_seed(game.server_seed, [HOST_SEED, GUEST_SEED, ""], 1)]


def test_a_player_who_sends_no_seed_gets_one_made_and_shown_back(host, guest):
    game_id = created(host)["id"]
    joined = guest.post(f"/games/{game_id}/join").json()
    made = joined["you"]["client_seed"]
    assert re.fullmatch("[0-9a-f]{32}", made)
    host.post(f"/games/{game_id}/start")
    assert reload(game_id).state["client_seeds"][1] == made


@pytest.mark.parametrize(
    "bad", ["", "a" * 65, "ABCDEF", "my lucky seed", "tab\there", "é", 42, None, ["a"]]
)
def test_a_client_seed_that_is_not_one_is_refused_and_changes_nothing(host, guest, bad):
    game_id = created(host)["id"]
    before = footprint(game_id)
    for path, persona in ((f"/games/{game_id}/join", guest), (f"/games/{game_id}/start", host)):
        answer = persona.post(path, {"client_seed": bad})
        error = assert_error(answer, 400, "invalid_request")
        assert "client_seed" in error["details"]["fields"]
    refused = guest.post("/matchmaking", {"client_seed": bad})
    assert_error(refused, 400, "invalid_request")
    assert footprint(game_id) == before


def test_quick_match_takes_each_player_s_seed_into_the_deal(host, guest):
    first = host.post("/matchmaking", {"max_players": 2, "client_seed": HOST_SEED}).json()
    second = guest.post("/matchmaking", {"max_players": 2, "client_seed": GUEST_SEED}).json()
    assert first["id"] == second["id"]
    game = reload(first["id"])
    assert game.status == "playing"
    assert game.state["client_seeds"] == [HOST_SEED, GUEST_SEED]
    assert first["deal_commitment"] == fair.commitment(game.server_seed)


def test_a_seed_chosen_by_staff_deals_as_before_and_the_view_says_so(staff, guest):
    view = staff.post("/games", {"max_players": 2, "seed": 1234}).json()
    assert view["deal_algorithm"] == "mt19937/53"
    assert view["you"]["client_seed"] is None
    game = Game.objects.get(pk=view["id"])
    assert game.server_seed == ""
    assert view["deal_commitment"] == hashlib.sha256(b"mt19937/53\x001234").hexdigest()


# -- nobody reads a running game's seeds ------------------------------------------------


def test_no_endpoint_push_or_admin_page_shows_a_running_game_s_seeds(
    host, guest, outsider, staff, monkeypatch, admin_client: Client
):
    game = seated_and_started(host, guest, target_score=500)
    for _ in range(12):  # a few moves in, a bot's among them
        services.bot_act(game_id=game.pk, version=reload(game).version)
        game = reload(game)
        seat = game.seat_to_act()
        persona = {0: host, 1: guest}.get(seat or 0)
        if persona is not None and seat is not None:
            view = persona.get(f"/games/{game.pk}").json()
            move = next(m for m in view["you"]["legal_moves"] if m["action"] != "catch_uno")
            if move["action"] not in ("challenge", "accept"):
                persona.move(game.pk, view["version"], **move)
    game = reload(game)
    assert game.status == "playing"
    round_seed = replay.round_seeds(game)[0]
    secrets_of = {
        "the server seed": game.server_seed,
        "a round seed": round_seed,
        "the host's seed": HOST_SEED,
        "the guest's seed": GUEST_SEED,
    }
    own = {host.player.name: "the host's seed", guest.player.name: "the guest's seed"}
    for reader in (host, guest, outsider, staff):
        paths = [
            f"/games/{game.pk}",
            "/games",
            "/games?mine=true",
            f"/games/{game.pk}/events?after=0",
            f"/games/{game.pk}/log",
            "/players/me",
        ]
        if reader is staff:
            paths.append(f"/games/{game.pk}/replay?seq={game.last_seq}")
        for path in paths:
            answer = reader.get(path)
            assert answer.status_code == 200, (path, answer.content)
            text = answer.content.decode()
            for what, secret in secrets_of.items():
                if own.get(reader.player.name) == what and path == f"/games/{game.pk}":
                    continue  # their own seed, in their own view
                assert secret not in text, f"{reader.player.name} reads {what} in {path}"
    # What the push layer is handed for everything that happened.
    handed: list[push.Notification] = []
    monkeypatch.setattr(push, "enabled", lambda: True)
    monkeypatch.setattr(push, "deliver", lambda note: handed.append(note) or 1)
    notifications.change_notify(
        game_id=game.pk, first_seq=1, last_seq=game.last_seq, turn_seat=game.seat_to_act()
    )
    assert handed
    pushed = json.dumps([note.__dict__ for note in handed], default=str)
    # The admin's page of the game, and its list.
    pages = [
        admin_client.get(f"/admin/games/game/{game.pk}/change/").content.decode(),
        admin_client.get("/admin/games/game/").content.decode(),
    ]
    assert str(game.pk) in pages[0]
    for what, secret in secrets_of.items():
        assert secret not in pushed, f"a push carries {what}"
        for page in pages:
            assert secret not in page, f"the admin shows {what}"


# -- the reveal, and the verifier -------------------------------------------------------


def test_a_finished_game_s_log_reveals_every_seed(host, guest, outsider):
    game, _ = finished(host, guest)
    log = outsider.get(f"/games/{game.pk}/log").json()
    assert log["deal"] == {
        "algorithm": "uno-deal/1",
        "commitment": fair.commitment(game.server_seed),
        "server_seed": game.server_seed,
        "client_seeds": [HOST_SEED, GUEST_SEED, ""],
        "round_seeds": replay.round_seeds(game),
    }
    assert log["deal_commitment"] == log["deal"]["commitment"]


def test_a_whole_game_of_several_rounds_checks_out_with_the_verifier_alone(host, guest):
    _, log = finished(host, guest, target_score=200, long_rounds=True)
    said: list[str] = []
    verify.check(log, said.append)
    rounds = sum(1 for e in log["events"] if e["type"] == "round_started")
    assert rounds >= 2
    shuffles = int(re.search(r"shuffles\s+(\d+)", "\n".join(said)).group(1))  # type: ignore[union-attr]
    assert shuffles > rounds, "the game had reshuffles for the verifier to redo"
    assert any("final scores" in line for line in said)


def tampered(log: dict[str, Any], change: Any) -> dict[str, Any]:
    changed = copy.deepcopy(log)
    change(changed)
    return changed


def flip_hex(text: str, at: int = 10) -> str:
    return text[:at] + ("0" if text[at] != "0" else "1") + text[at + 1 :]


def test_the_verifier_fails_naming_the_step_when_any_byte_is_changed(host, guest):
    _, log = finished(host, guest, target_score=200, long_rounds=True)
    deal = log["deal"]

    def server_seed(changed: dict[str, Any]) -> None:
        changed["deal"]["server_seed"] = flip_hex(deal["server_seed"])

    def client_seed(changed: dict[str, Any]) -> None:
        changed["deal"]["client_seeds"][1] = GUEST_SEED[:-1] + "b"

    def commitment(changed: dict[str, Any]) -> None:
        changed["deal"]["commitment"] = flip_hex(deal["commitment"], 3)
        changed["deal_commitment"] = changed["deal"]["commitment"]

    played = [e for e in log["events"] if e["type"] == "card_played"]

    def move(changed: dict[str, Any]) -> None:
        # The first card of the game played from the seat after the one that played it.
        event = next(e for e in changed["events"] if e["seq"] == played[0]["seq"])
        event["seat"] = (event["seat"] + 1) % 3

    expected = {
        server_seed: "the commitment",
        client_seed: "round 1's seed",
        commitment: "the commitment",
        move: f"the move at seq {played[0]['seq']}",
    }
    for change, step in expected.items():
        with pytest.raises(verify.Failed) as failed:
            verify.check(tampered(log, change), lambda line: None)
        assert failed.value.step == step, (change.__name__, failed.value)
    # A changed drawn card fails at the shuffle that gave it.
    drawn = next(e for e in log["events"] if e["type"] == "cards_drawn" and e["data"]["cards"])

    def draw(changed: dict[str, Any]) -> None:
        event = next(e for e in changed["events"] if e["seq"] == drawn["seq"])
        card = event["data"]["cards"][0]
        card["id"] = (card["id"] + 1) % 108

    with pytest.raises(verify.Failed) as failed:
        verify.check(tampered(log, draw), lambda line: None)
    assert f"(seq {drawn['seq']})" in failed.value.step


def verify_file(saved: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "unoclient", "verify", "--file", str(saved)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_command_line_verifier_reads_a_saved_log(host, guest, tmp_path):
    _, log = finished(host, guest)
    saved = tmp_path / "log.json"
    saved.write_text(json.dumps(log))
    done = verify_file(saved)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "commitment" in done.stdout
    assert "The deal and every move check out." in done.stdout
    log["deal"]["client_seeds"][0] = "5e1f"
    saved.write_text(json.dumps(log))
    done = verify_file(saved)
    assert done.returncode == 1
    assert "FAILED at round 1's seed" in done.stdout


def test_a_running_game_has_nothing_to_check_yet(host, guest):
    game = seated_and_started(host, guest, target_score=500)
    log = guest.get(f"/games/{game.pk}/log").json()
    with pytest.raises(verify.Failed) as failed:
        verify.check(log, lambda line: None)
    assert failed.value.step == "the reveal"


def test_verify_games_matches_games_of_every_algorithm(host, guest, staff):
    from django.core.management import call_command

    fair_game, _ = finished(host, guest)
    chosen = staff.post("/games", {"max_players": 2, "target_score": 0, "seed": 77}).json()
    guest.post(f"/games/{chosen['id']}/join")
    staff.post(f"/games/{chosen['id']}/start")
    play_out(reload(chosen["id"]), {0: staff, 1: guest})
    for game in (fair_game, reload(chosen["id"])):
        replay.verify(game)
    call_command("verify_games")
