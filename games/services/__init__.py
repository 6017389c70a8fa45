"""The one door for every change to a game, by capability: `lobby` (create, join,
start, leave, rematch), `arranging` (the host seats players in teams), `invites`
(friends asked to a game), `matching` (quick match), `play` (moves), `timers` (bots,
turn timeouts, pauses, the sweeper), `tickets` (the streams' one-time tickets, which
change no game); `seating` and `saving` are what they share, and `notify` is what a
change tells the live streams (`games.live.hub` listens).

Each service is one transaction: it locks the game row first (``SELECT ... FOR
UPDATE``), checks who asks and what phase the game is in, lets the engine decide,
then saves the snapshot, appends the events with gap-free seqs and bumps `version`
by exactly one. A rejected request raises a `ServiceError` and changes nothing.

Callers use the names below, as ``services.move_apply(...)``.
"""

from games.services.arranging import game_seats_arrange
from games.services.common import PAUSE_FOR, REPLACEMENT_BOT, Outcome
from games.services.invites import (
    MAX_INVITES_PER_GAME,
    MAX_REMATCH_INVITES,
    RESEND_AFTER,
    Invited,
    game_invite,
)
from games.services.lobby import (
    INVITE_CODE_ATTEMPTS,
    bot_match_start,
    game_add_bot,
    game_create,
    game_join,
    game_leave,
    game_rematch,
    game_start,
)
from games.services.matching import (
    DEFAULT_BOTS_AFTER,
    MATCH_CANDIDATES,
    MATCHES,
    MAX_BOTS_AFTER,
    MIN_BOTS_AFTER,
    MatchRequest,
    match_bots_fill,
    match_cancel,
    match_find,
    match_key,
)
from games.services.play import move_apply, ratings_recompute
from games.services.saving import TIMER_SLACK, longest_countdown
from games.services.seating import LAST_PLAYER_LEFT, MAX_OPEN_GAMES
from games.services.tickets import (
    STREAM_TICKET_LIFETIME,
    stream_ticket_issue,
    stream_ticket_redeem,
    stream_tickets_purge,
)
from games.services.timers import (
    Swept,
    bot_act,
    game_abandon,
    game_pause_expire,
    queue_heartbeat,
    seat_resume,
    sweep_overdue,
    turn_timeout_apply,
)

__all__ = [
    "DEFAULT_BOTS_AFTER",
    "INVITE_CODE_ATTEMPTS",
    "LAST_PLAYER_LEFT",
    "MATCHES",
    "MATCH_CANDIDATES",
    "MAX_BOTS_AFTER",
    "MAX_INVITES_PER_GAME",
    "MAX_OPEN_GAMES",
    "MAX_REMATCH_INVITES",
    "MIN_BOTS_AFTER",
    "PAUSE_FOR",
    "REPLACEMENT_BOT",
    "RESEND_AFTER",
    "STREAM_TICKET_LIFETIME",
    "TIMER_SLACK",
    "Invited",
    "MatchRequest",
    "Outcome",
    "Swept",
    "bot_act",
    "bot_match_start",
    "game_abandon",
    "game_add_bot",
    "game_create",
    "game_invite",
    "game_join",
    "game_leave",
    "game_pause_expire",
    "game_rematch",
    "game_seats_arrange",
    "game_start",
    "longest_countdown",
    "match_bots_fill",
    "match_cancel",
    "match_find",
    "match_key",
    "move_apply",
    "queue_heartbeat",
    "ratings_recompute",
    "seat_resume",
    "stream_ticket_issue",
    "stream_ticket_redeem",
    "stream_tickets_purge",
    "sweep_overdue",
    "turn_timeout_apply",
]
