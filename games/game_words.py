"""A game's status and whether it counts for ratings, in the words of the staff pages:
a paused game says until when, and "rated" means what docs/api.md says it means,
not merely the setting the game was created with."""

from __future__ import annotations

from django.utils import timezone

from games.models import Game, GameStatus, Result
from games.ratings import rules


def status_in_words(game: Game) -> str:
    """The status, and for a game paused for want of humans until when it waits for
    one to take their seat back (then it is abandoned)."""
    if game.status == GameStatus.PLAYING and game.paused_until is not None:
        until = timezone.localtime(game.paused_until).strftime("%Y-%m-%d %H:%M:%S")
        return f"Paused until {until} (abandoned then, unless a player takes their seat back)"
    return str(game.get_status_display())


# Why a game does not count for ratings (`rules.unrated_now`), as docs/api.md says.
UNRATED_IN_WORDS = {
    rules.UNRATED_GAME: "no: created unrated",
    rules.TOO_FEW_HUMANS: "no: fewer than two human players",
    rules.SAME_NETWORK: "no: two of its players joined from one network",
    rules.REPEAT_OPPONENTS: "no: the same humans' rated games of the day were used up",
    rules.ANNULLED: "no: its rating was annulled",
    GameStatus.ABANDONED.value: "no: abandoned",
}


def rated_in_words(game: Game) -> str:
    """Whether the game counts for ratings: for a finished game what it counted for
    (the "rating" row says more), otherwise what its setting and its humans say now."""
    ended = Result.objects.filter(game=game).order_by("seat").first()
    if ended is not None:
        # Games that finished before reasons were kept say no more than "no".
        return "yes" if ended.rated else UNRATED_IN_WORDS.get(ended.unrated_reason or "", "no")
    reason = rules.unrated_now(game)
    if reason is not None:
        return UNRATED_IN_WORDS.get(reason, f"no: {reason}")
    if game.status == GameStatus.WAITING and len(game.seating) < game.max_players:
        humans = sum(1 for entry in game.seating if entry["player"] is not None)
        if humans < rules.MIN_HUMANS_TO_RATE:
            return "yes, if a second human player joins"
    return "yes"
