"""What the API says of a game's deal (docs/fairness.md): the algorithm and the
commitment, published from the creation on; the seeds, revealed once it is over."""

from __future__ import annotations

from typing import Any

from games.engine import GameState
from games.engine import rng as engine_rng
from games.models import Game
from games.replay import client_seeds_of, round_seeds, seed_bits_of


def deal_seed(game: Game) -> int | str:
    """What the game is dealt from: its server seed, or its integer seed."""
    return game.server_seed or game.seed


def algorithm(game: Game) -> str:
    return engine_rng.algorithm_of(deal_seed(game), seed_bits_of(game))


def commitment(game: Game) -> str:
    """Fixed at the creation: the seed it hashes never changes."""
    return engine_rng.commitment(deal_seed(game), seed_bits_of(game))


def client_seed_of(game: Game, seat: int | None, state: GameState | None) -> str | None:
    """The client seed of the player at `seat`, for them alone: from the deal once it
    is made, else as noted while the game waits; None for a Mersenne Twister deal."""
    if seat is None or not game.server_seed:
        return None
    if state is not None:
        return state.client_seeds[seat] if seat < len(state.client_seeds) else None
    player = game.seating[seat]["player"]
    return game.client_seeds.get(player["id"]) if player else None


def deal_json(game: Game) -> dict[str, Any]:
    """The log's `deal`: the seeds are null until the game is over, for every reader."""
    revealed = game.is_over and game.state is not None
    shown: dict[str, Any] = {
        "algorithm": algorithm(game),
        "commitment": commitment(game),
        "server_seed": None,
        "client_seeds": None,
        "round_seeds": None,
    }
    if revealed:
        seeds = round_seeds(game)
        shown["server_seed"] = str(deal_seed(game))
        shown["client_seeds"] = client_seeds_of(game)
        shown["round_seeds"] = [str(seed) for seed in seeds]
    return shown
