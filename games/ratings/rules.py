"""What decides whether a finished game counts for ratings, and a rating as the API
shows it: pure functions of a game's row, which the reads (the view's `rated`, the
staff pages' words) and the writes (`games.ratings.writes`, as a game ends) share.
"""

from __future__ import annotations

import hashlib
import hmac

from django.conf import settings

from games.engine.vocabulary import RatingChangeData, RatingData
from games.models import Game, GameStatus, SeatingEntry
from players import rating
from players.models import bot_key
from unoservice.client_address import address_group

# A rated game needs this many human players: games among bots are not rated, nor is
# one player against bots (the bots' ratings would move on nobody's contest).
MIN_HUMANS_TO_RATE = 2

# Why a finished game was not rated (`Result.unrated_reason`, the history's
# `unrated_reason`).
UNRATED_GAME = "unrated_game"  # created with rated false
TOO_FEW_HUMANS = "too_few_humans"  # fewer than MIN_HUMANS_TO_RATE
SAME_NETWORK = "same_network"  # two of its humans joined from one address group
REPEAT_OPPONENTS = "repeat_opponents"  # two of its humans' REPEATS_PER_WINDOW were rated
ANNULLED = "annulled"  # rated, then annulled by an operator (games.ratings.annulment)
UNRATED_REASONS = (UNRATED_GAME, TOO_FEW_HUMANS, SAME_NETWORK, REPEAT_OPPONENTS, ANNULLED)
# What a game's view and lobby row may say (`unrated_now`): an abandoned game too.
ABANDONED = GameStatus.ABANDONED.value
VIEW_UNRATED_REASONS = (*UNRATED_REASONS, ABANDONED)


def network_of(address: str) -> str:
    """What a game keeps of where a human joined from (`Game.networks`): a digest of
    the address's group (`unoservice.client_address.address_group`: an IPv4
    address, an IPv6 /64), keyed with SECRET_KEY so that the stored value names no
    address and cannot be matched against a list of them."""
    group = address_group(address).encode()
    return hmac.new(settings.SECRET_KEY.encode(), group, hashlib.sha256).hexdigest()[:24]


def shares_a_network(game: Game) -> bool:
    """Whether two humans of `game` joined it from one address group."""
    seen: set[str] = set()
    for entry in game.seating:
        if entry["player"] is None:
            continue
        network = game.networks.get(str(entry["player"]["id"]))
        if network is not None:
            if network in seen:
                return True
            seen.add(network)
    return False


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
    """Why `game` is not rated whoever played it before: its setting, too few humans,
    or two humans from one address group. None when it is rated unless it repeats."""
    if not game.rated:
        return UNRATED_GAME
    humans = sum(1 for entry in game.seating if entry["player"] is not None)
    if humans < MIN_HUMANS_TO_RATE:
        return TOO_FEW_HUMANS
    return SAME_NETWORK if shares_a_network(game) else None


def unrated_now(game: Game) -> str | None:
    """Why `game` does not count for ratings as far as can be told now, or None when it
    does (docs/api.md, which games are rated): never once abandoned; once finished,
    what it counted for (`Game.unrated_reason`, as its results say, the repeat limit
    and an annulment included); while it waits with a free seat, by its setting and
    its networks, since a second human may still join; otherwise by its setting, its
    humans and their networks. The repeat limit is only known as it ends."""
    if game.status == GameStatus.ABANDONED:
        return ABANDONED
    if game.status == GameStatus.FINISHED:
        return game.unrated_reason
    if game.status == GameStatus.WAITING and len(game.seating) < game.max_players:
        if not game.rated:
            return UNRATED_GAME
        return SAME_NETWORK if shares_a_network(game) else None
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
