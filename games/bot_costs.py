"""What a player may have bots cost the service: the expert bots seated on their
behalf in the waiting and running games they are one of the players of are capped
at ``MAX_EXPERT_BOTS_PER_PLAYER`` (docs/api.md, Bots). The expert is the bot that
thinks hardest, and a game of bots plays on while its one human watches.

Counted: the expert seats of every waiting or running game the player holds a seat
in, or a seat a bot holds after their timeouts (whoever seated the bots there). Not
counted: the bots the service seats itself, in a seat a player left or lost (their
seat keeps the player) or in a quick match's empty seats (greedy bots), and an
operator's matches among bots (`services.bot_match_start`).
"""

from __future__ import annotations

from django.conf import settings

from games import selectors
from games.models import BotStrategy
from players.models import Player
from unoservice import fastsql
from unoservice.errors import TooManyBots


def experts_among(strategies: list[str]) -> int:
    return sum(strategy == BotStrategy.EXPERT for strategy in strategies)


def check_expert_bots(player: Player, adding: int) -> None:
    """Refuse (`TooManyBots`) to seat `adding` more expert bots on `player`'s behalf
    when that would take them past the cap. Locks the player's row first, in the
    caller's transaction (after the game rows it locks, as the open-game cap does):
    two requests of one player at once are counted one after the other, each
    seeing the bots the other seated."""
    if adding <= 0:
        return
    fastsql.lock_keys(Player, [player.pk])
    seated = selectors.expert_bots_of(player)
    limit = int(settings.MAX_EXPERT_BOTS_PER_PLAYER)
    if seated + adding > limit:
        raise TooManyBots(
            f"your waiting and running games already have {seated} expert bots"
            f" (at most {limit}); finish or leave one, or seat another strategy",
            details={"limit": limit},
        )
