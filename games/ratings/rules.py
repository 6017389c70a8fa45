"""What decides whether a finished game counts for ratings, and a rating as the API
shows it: pure functions of a game's row, which the reads (the view's `rated`, the
staff pages' words) and the writes (`games.ratings.writes`, as a game ends) share.
"""

from __future__ import annotations

from games.engine.vocabulary import RatingChangeData, RatingData
from games.models import Game, GameStatus, SeatingEntry
from players import rating
from players.models import bot_key

# A rated game needs this many human players: games among bots are not rated, nor is
# one player against bots (the bots' ratings would move on nobody's contest).
MIN_HUMANS_TO_RATE = 2

# Why a finished game was not rated (`Result.unrated_reason`, the history's
# `unrated_reason`).
UNRATED_GAME = "unrated_game"  # created with rated false
TOO_FEW_HUMANS = "too_few_humans"  # fewer than MIN_HUMANS_TO_RATE
REPEAT_OPPONENTS = "repeat_opponents"  # the same humans' REPEATS_PER_WINDOW were rated
ANNULLED = "annulled"  # rated, then annulled by an operator (games.ratings.annulment)
UNRATED_REASONS = (UNRATED_GAME, TOO_FEW_HUMANS, REPEAT_OPPONENTS, ANNULLED)


def seat_key(entry: SeatingEntry) -> str:
    """Whose rating a seat of `Game.seating` counts for: its player's, kept when a bot
    finished the game for them (leaving does not dodge a loss), else its bot's."""
    if entry["player"] is not None:
        return str(entry["player"]["id"])
    if entry["bot"] is None:
        raise ValueError("a seat of the seating with neither a player nor a bot")
    return bot_key(entry["bot"])


def forfeited(entry: SeatingEntry) -> bool:
    """Whether the player of a seat of `Game.seating` forfeited it: a bot holds the
    seat they sat in, because they left or because they timed out and have not
    resumed (a seat resumed is theirs again)."""
    return entry["player"] is not None and entry["bot"] is not None


def unrated_setting(game: Game) -> str | None:
    """Why `game` is not rated whoever played it before: its setting, or too few
    humans. None when it is rated unless it repeats."""
    if not game.rated:
        return UNRATED_GAME
    humans = sum(1 for entry in game.seating if entry["player"] is not None)
    return None if humans >= MIN_HUMANS_TO_RATE else TOO_FEW_HUMANS


def is_rated(game: Game) -> bool:
    """Whether `game` counts for ratings by its setting and its humans (the repeat
    limit is checked when it ends, in `lock_ratings`)."""
    return unrated_setting(game) is None


def unrated_now(game: Game) -> str | None:
    """Why `game` does not count for ratings as far as can be told now, or None when it
    does (docs/api.md, which games are rated): never once abandoned; while it waits
    with a free seat, by its setting alone, since a second human may still join;
    otherwise by its setting and its humans (`TOO_FEW_HUMANS`). The repeat limit is
    only known as it ends, and an annulment after: `Result` keeps those."""
    if game.status == GameStatus.ABANDONED:
        return GameStatus.ABANDONED.value
    if game.status == GameStatus.WAITING and len(game.seating) < game.max_players:
        return None if game.rated else UNRATED_GAME
    return unrated_setting(game)


def rating_json(skill: rating.Skill, games: int) -> RatingData:
    """A rating as the API shows it."""
    return RatingData(mu=skill.mu, sigma=skill.sigma, ordinal=skill.ordinal, games=games)


def rating_change(before: rating.Skill, after: rating.Skill) -> RatingChangeData:
    """What a game changed of a rating, as the API shows it."""
    return RatingChangeData(
        mu=after.mu - before.mu,
        sigma=after.sigma - before.sigma,
        ordinal=after.ordinal - before.ordinal,
    )
