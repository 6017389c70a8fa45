"""The 112-card deck over HTTP (docs/api.md, "The 112-card deck"): `deck:
"modern_112"` with its two options, shown in the view and the lobby, kept by a
rematch; a Wild Shuffle Hands deals every hand to the right size, shows each player
only their own new hand, and checks out with the verifier."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from games import services
from games.engine import GameConfig, GameState, new_game
from games.engine.cards import SHUFFLE_HANDS
from games.models import Game
from tests.factories import Persona, assert_error, play_out, reload
from unoclient import verify

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("rate_limits_off")]

HOST_SEED = "5eed0001"
GUEST_SEED = "5eed0002"


def server_seed_dealing_shuffle_hands_to(seat: int, config: GameConfig, seeds: list[str]) -> str:
    """A server seed whose first deal, with these client seeds, gives `seat` the Wild
    Shuffle Hands (found with the engine, as the service deals)."""
    for n in range(1, 500):
        server_seed = f"{n:064x}"
        state, _ = new_game(config, server_seed, client_seeds=seeds)
        if SHUFFLE_HANDS in state.hands[seat]:
            return server_seed
    raise AssertionError("no server seed deals it there")


def modern_table(host: Persona, guest: Persona, **settings: Any) -> str:
    """Host (seat 0), guest (1) and a greedy bot (2) at a one-round modern table, dealt
    so that the host holds the Wild Shuffle Hands; not started yet."""
    body = {"max_players": 3, "target_score": 0, "deck": "modern_112", **settings}
    created = host.post("/games", body)
    assert created.status_code == 201, created.json()
    game_id = created.json()["id"]
    config = GameConfig(3, 0, deck="modern_112")
    seed = server_seed_dealing_shuffle_hands_to(0, config, [HOST_SEED, GUEST_SEED, ""])
    Game.objects.filter(pk=game_id).update(server_seed=seed, seed=1)
    assert guest.post(f"/games/{game_id}/join", {"client_seed": GUEST_SEED}).status_code == 200
    assert host.post(f"/games/{game_id}/bots", {"strategy": "greedy"}).status_code == 201
    return str(game_id)


def play_until_shuffled(game_id: str, humans: dict[int, Persona]) -> dict[str, Any]:
    """Play on, bots through the service and humans through the API, a human playing
    the Wild Shuffle Hands when they may, else their first play, else their first
    move, until it was played. The answer to that move."""
    for _ in range(200):
        game = reload(game_id)
        assert game.status == "playing", "the round ended before the Shuffle Hands"
        if services.bot_act(game_id=game.pk, version=game.version) is not None:
            continue
        seat = GameState.from_snapshot(game.state).to_act
        assert seat in humans
        view = humans[seat].get(f"/games/{game_id}").json()
        legal = [m for m in view["you"]["legal_moves"] if m["action"] != "catch_uno"]
        shuffle = [m for m in legal if m.get("card") == SHUFFLE_HANDS]
        plays = [m for m in legal if m["action"] == "play"]
        move = (shuffle or plays or legal)[0]
        answer = humans[seat].move(game_id, view["version"], **move)
        assert answer.status_code == 200, answer.json()
        if shuffle:
            return dict(answer.json())
    raise AssertionError("the Wild Shuffle Hands was never played")


# -- the options ----------------------------------------------------------------------


def test_a_modern_table_shows_its_deck_and_options_in_the_view_and_the_lobby(host):
    body = {"deck": "modern_112", "wild_customizable": "swap_hands"}
    view = host.post("/games", body).json()
    assert (view["deck"], view["shuffle_hands_last_card"], view["wild_customizable"]) == (
        "modern_112",
        "redeal",
        "swap_hands",
    )
    listed = host.get("/games").json()["results"][0]
    assert (listed["deck"], listed["wild_customizable"]) == ("modern_112", "swap_hands")


def test_a_classic_table_has_no_modern_options(host):
    view = host.post("/games", {}).json()
    assert (view["deck"], view["shuffle_hands_last_card"], view["wild_customizable"]) == (
        "classic_108",
        None,
        None,
    )


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"shuffle_hands_last_card": "wins"}, 422, "settings_conflict"),
        ({"wild_customizable": "skip_everyone"}, 422, "settings_conflict"),
        ({"deck": "modern_113"}, 400, "invalid_request"),
        ({"deck": "modern_112", "wild_customizable": "draw_ten"}, 400, "invalid_request"),
        ({"deck": "modern_112", "shuffle_hands_last_card": True}, 400, "invalid_request"),
    ],
)
def test_a_modern_option_without_the_deck_or_out_of_the_catalogue_is_refused(
    host, body, status, code
):
    assert_error(host.post("/games", body), status, code)
    assert Game.objects.count() == 0


def test_a_rematch_keeps_the_deck_and_its_options(host, guest):
    game_id = modern_table(host, guest, shuffle_hands_last_card="wins")
    host.post(f"/games/{game_id}/start", {"client_seed": HOST_SEED})
    game = reload(game_id)
    services.game_abandon(game_id=game.pk, reason="closed by an operator", by="operator")
    rematch = host.post(f"/games/{game_id}/rematch").json()
    assert (rematch["deck"], rematch["shuffle_hands_last_card"]) == ("modern_112", "wins")


def test_a_card_of_the_modern_deck_is_refused_at_a_classic_table(host, guest):
    game_id = host.post("/games", {"max_players": 2}).json()["id"]
    guest.post(f"/games/{game_id}/join")
    version = host.post(f"/games/{game_id}/start").json()["version"]
    answer = host.move(game_id, version, action="play", card=SHUFFLE_HANDS, color="red")
    assert_error(answer, 400, "invalid_request")


# -- Wild Shuffle Hands ---------------------------------------------------------------


def test_a_shuffle_hands_deals_every_hand_to_size_and_shows_each_player_only_their_own(
    host, guest, outsider
):
    game_id = modern_table(host, guest)
    host.post(f"/games/{game_id}/start", {"client_seed": HOST_SEED})
    before = GameState.from_snapshot(reload(game_id).state)
    cards_in_hands = sum(len(hand) for hand in before.hands)
    answer = play_until_shuffled(game_id, {0: host, 1: guest})
    state = GameState.from_snapshot(reload(game_id).state)
    counts = [len(hand) for hand in state.hands]
    assert max(counts) - min(counts) <= 1
    shuffled = next(e for e in answer["events"] if e["type"] == "hands_shuffled")
    assert shuffled["data"]["counts"] == counts
    assert set(shuffled["data"]) == {"hand", "counts"}
    assert [c["id"] for c in shuffled["data"]["hand"]] == state.hands[0]
    assert sum(counts) <= cards_in_hands + len(before.draw_pile)  # nothing was made up
    # Every reader's log and view: their own new hand, and of the others the counts.
    for seat, persona in ((0, host), (1, guest), (None, outsider)):
        log = persona.get(f"/games/{game_id}/log").json()
        event = next(e for e in log["events"] if e["type"] == "hands_shuffled")
        if seat is None:
            assert set(event["data"]) == {"counts"}
        else:
            assert set(event["data"]) == {"hand", "counts"}
            assert [c["id"] for c in event["data"]["hand"]] == state.hands[seat]
        view = persona.get(f"/games/{game_id}").json()
        shown = {c["id"] for c in (view["you"] or {}).get("hand", [])}
        others = {c for s, hand in enumerate(state.hands) if s != seat for c in hand}
        assert not shown & others


def test_a_modern_game_with_a_shuffle_hands_checks_out_with_the_verifier(host, guest):
    game_id = modern_table(host, guest)
    host.post(f"/games/{game_id}/start", {"client_seed": HOST_SEED})
    play_until_shuffled(game_id, {0: host, 1: guest})
    assert play_out(reload(game_id), {0: host, 1: guest}).status == "finished"
    log = host.get(f"/games/{game_id}/log").json()
    said: list[str] = []
    verify.check(log, said.append)
    assert any(line.startswith("shuffles") for line in said)
    changed = copy.deepcopy(log)
    event = next(e for e in changed["events"] if e["type"] == "hands_shuffled")
    hands = event["data"]["hands"]
    hands["0"], hands["1"] = hands["1"], hands["0"]
    with pytest.raises(verify.Failed, match="shuffle"):
        verify.check(changed, said.append)
