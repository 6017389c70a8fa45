"""Games, their seats, the event log, stream tickets and the heartbeats of periodic
jobs.

The engine snapshot in `Game.state` is the one source of truth for the table (every
hand included); seats record who sits where. Nothing here changes a game: that is
`games.services`' job.
"""

from __future__ import annotations

import uuid
from typing import Final, NotRequired, TypedDict

from django.conf import settings
from django.db import models

from games.engine import GameState
from games.engine.cards import DECKS
from games.engine.state import CUSTOM_EFFECTS, SHUFFLE_HANDS_LAST_CARD
from games.fields import OpaqueJSONField
from players.models import Player, PlayerSession


class SeatedPlayer(TypedDict):
    """The player of a seat, as `Game.seating` names them."""

    id: str
    name: str
    # Kept since tags were shown (`players.models.player_tag`); older games' seats
    # have none.
    tag: NotRequired[str]


class SeatingEntry(TypedDict):
    """One seat of `Game.seating`: its player (kept when a bot took the seat over),
    and its bot's strategy (None while a human plays it)."""

    player: SeatedPlayer | None
    bot: str | None


def player_ref(player: Player) -> SeatedPlayer:
    """A player as others read them: id, name and tag."""
    return {"id": str(player.pk), "name": player.name, "tag": player.tag}


def seating_entry(player: Player | None, bot: str | None) -> SeatingEntry:
    """One seat of `Game.seating`."""
    return {
        "player": None if player is None else player_ref(player),
        "bot": bot,
    }


class GameStatus(models.TextChoices):
    WAITING = "waiting"
    PLAYING = "playing"
    FINISHED = "finished"
    ABANDONED = "abandoned"


class GameMode(models.TextChoices):
    CLASSIC = "classic"
    PARTNERS = "partners"


def _choices(values: tuple[str, ...]) -> list[tuple[str, str]]:
    """A field's choices from the engine's names of them."""
    return [(value, value) for value in values]


class Visibility(models.TextChoices):
    PUBLIC = "public"
    PRIVATE = "private"


# The statuses in which a game still takes part in play, and in which its invite code
# must be unique (a finished game keeps its code, which a new game may then reuse).
OPEN_STATUSES: Final = (GameStatus.WAITING, GameStatus.PLAYING)
# The statuses of a game that is over: it takes no more moves, and its log is whole.
OVER_STATUSES: Final = (GameStatus.FINISHED, GameStatus.ABANDONED)


class BotStrategy(models.TextChoices):
    RANDOM = "random"
    GREEDY = "greedy"
    EXPERT = "expert"


class Game(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    status = models.CharField(
        max_length=16, choices=GameStatus.choices, default=GameStatus.WAITING, db_index=True
    )
    host = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="hosted_games")
    max_players = models.PositiveSmallIntegerField(default=4)
    target_score = models.PositiveIntegerField(default=500)
    turn_timeout = models.PositiveIntegerField(null=True, blank=True)  # seconds
    rules = models.JSONField(default=dict)
    # `classic`, every seat for itself, or `partners` (docs/rules.md): four seats,
    # 0 and 2 against 1 and 3; `partners_see_hands` shows each partner the other's hand.
    mode = models.CharField(max_length=8, choices=GameMode.choices, default=GameMode.CLASSIC)
    partners_see_hands = models.BooleanField(default=False)
    # The classic 108 cards or the modern 112 (docs/rules.md), with what the modern
    # deck's Wild Shuffle Hands does as a last card and its Wild Customizable does.
    deck = models.CharField(max_length=12, choices=_choices(DECKS), default="classic_108")
    shuffle_hands_last_card = models.CharField(
        max_length=8, choices=_choices(SHUFFLE_HANDS_LAST_CARD), default="redeal"
    )
    wild_customizable = models.CharField(
        max_length=20, choices=_choices(CUSTOM_EFFECTS), default="wild"
    )
    # The integer a Mersenne Twister deal comes from (`mt19937/53`: a seed chosen by
    # staff, and every game dealt before `uno-deal/1`); for a game with a server
    # seed, what its bots' own generators are seeded from.
    seed = models.BigIntegerField()
    # `uno-deal/1` (docs/fairness.md): 64 hex digits from the OS's CSPRNG, committed to
    # in every view (`deal_commitment`) and revealed once the game is over; "" for a
    # game dealt from `seed`.
    server_seed = models.CharField(max_length=64, blank=True, default="")
    # The client seed of every human seated while the game waits, by player id (sent
    # with the join, the start or the quick-match request, or made for them). The
    # deal takes them in seat order at the start, into the engine's snapshot.
    client_seeds: models.JSONField[dict[str, str], dict[str, str]] = models.JSONField(
        default=dict, blank=True
    )
    # A private game is listed and shown only to its players and to holders of its
    # invite code; public games have no code (NULL).
    visibility = models.CharField(
        max_length=8, choices=Visibility.choices, default=Visibility.PUBLIC
    )
    invite_code = models.CharField(max_length=8, null=True, blank=True)  # noqa: DJ001
    # Whether the game counts for ratings.
    rated = models.BooleanField(default=True)
    # Table talk: whether players may type short free text as well as the catalogue's
    # phrases and emotes (the host's choice; off by default in public games).
    free_text = models.BooleanField(default=False)
    # Once finished: why it did not count for ratings (`games.ratings.rules`), as its
    # results say; NULL while it is not over and when it counted. Written with the
    # ending move and by an annulment, so that the view needs no read of the results.
    unrated_reason = models.CharField(max_length=32, null=True, blank=True)  # noqa: DJ001
    # Where each human joined from: player id -> a keyed digest of the address group
    # (`games.ratings.rules.network_of`), never the address. Humans who joined from
    # one group do not rate each other (`same_network`).
    networks: models.JSONField[dict[str, str], dict[str, str]] = models.JSONField(
        default=dict, blank=True
    )
    state = OpaqueJSONField(null=True, blank=True)  # engine snapshot once started
    # Who sits where, by seat: [{"player": {"id", "name"} | null, "bot": str | null}].
    # The services keep it in step with the Seat rows in the same transaction, so that
    # a move or a view needs no join to seats and players.
    seating: models.JSONField[list[SeatingEntry], list[SeatingEntry]] = models.JSONField(
        default=list
    )
    # Grows by exactly one per accepted request; clients send it with every move.
    version = models.PositiveIntegerField(default=1)
    last_seq = models.PositiveIntegerField(default=0)
    # Moves and timeouts applied since the start: the game's length in turns.
    moves = models.PositiveIntegerField(default=0)
    # When the human to act gets the default action (docs/rules.md, timeouts).
    turn_deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    # When the human to act is reminded of a long turn (a quarter of it left), while
    # notifications are on; cleared once sent (games.notifications).
    reminder_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # When the bot to act is due to move: its think time after the last change. The
    # turn sweeper moves any bot left overdue, e.g. because its task died with a worker.
    bot_due_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # Set while the game is paused for want of humans (every human seat went to a bot,
    # at least one through timeouts): nobody moves until a timed-out player resumes,
    # and at this moment the game is abandoned.
    paused_until = models.DateTimeField(null=True, blank=True, db_index=True)
    winner = models.PositiveSmallIntegerField(null=True, blank=True)
    # The next game with the same settings, once a player of this one asked for it
    # (`services.game_rematch`): made once, however many ask, and recorded here under
    # this row's lock.
    rematch = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="rematch_of"
    )
    # A quick-match game (`services.match_find`) carries the settings it is matched
    # on, e.g. "4:500:jump_in,stacking" (seats, target score, the house rules on);
    # NULL for every other game, which quick match never joins.
    match_key = models.CharField(max_length=128, null=True, blank=True, db_index=True)  # noqa: DJ001
    # A partners quick-match game: who asked to play with whom, by player id (each
    # of a duo names the other); the deal seats each duo across the table.
    duos = models.JSONField(default=dict, blank=True)
    # While a quick-match game waits: when its empty seats go to bots and it starts
    # (its first seat's time plus the creator's `bots_after`); NULL for never.
    bots_at = models.DateTimeField(null=True, blank=True, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            # Codes are unique among open games only: joining by code looks among
            # them, and a finished game keeps its code for the record. The partial
            # index also serves that lookup.
            models.UniqueConstraint(
                fields=["invite_code"],
                condition=models.Q(invite_code__isnull=False, status__in=OPEN_STATUSES),
                name="unique_invite_code_among_open_games",
            ),
        ]

    def __str__(self) -> str:
        # A paused game is still `playing`, but nobody may move: say so where it is named.
        return f"game {self.id} ({'paused' if self.paused_until else self.status})"

    def seat_of(self, player: Player | None) -> int | None:
        """The seat `player` plays at (a seat handed to a bot is no longer theirs)."""
        if player is None:
            return None
        player_id = str(player.pk)
        for number, entry in enumerate(self.seating):
            if entry["bot"] is None and entry["player"] and entry["player"]["id"] == player_id:
                return number
        return None

    def seated_host(self) -> SeatedPlayer | None:
        """The host's entry in `seating` (their id and name) when they have a seat,
        whoever holds it now; None for a host who does not play."""
        host_id = str(self.host_id)
        for entry in self.seating:
            player = entry["player"]
            if player and player["id"] == host_id:
                return player.copy()
        return None

    def seat_to_act(self) -> int | None:
        """The seat whose turn or decision it is while the game runs and is not
        paused; None otherwise. Public: the view shows it (`current_seat`, and
        `pending.seat` for a decision)."""
        if self.status != GameStatus.PLAYING or self.paused_until is not None or not self.state:
            return None
        return GameState.from_snapshot(self.state).to_act

    def is_turn_of(self, player: Player | None) -> bool:
        """Whether `player` holds the seat to act (a seat a bot took over is not theirs)."""
        seat = self.seat_of(player)
        return seat is not None and seat == self.seat_to_act()

    def human_at(self, seat: int) -> str | None:
        """The id of the person who plays at `seat`; None for a bot's seat, a seat a
        bot took over, or an empty one."""
        entry = self.seating[seat]
        return entry["player"]["id"] if entry["bot"] is None and entry["player"] else None

    def human_player_ids(self) -> list[str]:
        return [e["player"]["id"] for e in self.seating if e["bot"] is None and e["player"]]

    @property
    def is_over(self) -> bool:
        """Whether the game is over (finished or abandoned): it takes no more moves."""
        return self.status in OVER_STATUSES


class Seat(models.Model):
    """Who sits at one seat: a player, or a bot (a player's seat taken over keeps
    the player for the record, with `bot` set)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    player = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.PROTECT, related_name="seats"
    )
    # NULL, not "": a seat without a bot is a human's, and the API says `"bot": null`.
    bot = models.CharField(  # noqa: DJ001
        max_length=16, choices=BotStrategy.choices, null=True, blank=True
    )
    # The bot holds this seat because its player timed out three times in a row: the
    # player may take it back (resume). A player who left has no such right.
    timed_out = models.BooleanField(default=False)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seat"], name="unique_seat_per_game"),
            models.UniqueConstraint(
                fields=["game", "player"],
                condition=models.Q(player__isnull=False),
                name="one_seat_per_player_per_game",
            ),
        ]

    def __str__(self) -> str:
        who = self.player.name if self.player_id and self.player else self.bot
        return f"seat {self.seat}: {who}"

    def seating_entry(self) -> SeatingEntry:
        return seating_entry(self.player if self.player_id is not None else None, self.bot)


class Event(models.Model):
    """One entry of a game's log. `data` is stored complete (card ids, every hand);
    what a reader may see is decided when it is rendered."""

    # No index of its own: `unique_seq_per_game` (game, seq) serves every lookup by
    # game, and one index fewer is one less to write for each event of every move.
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="events", db_index=False)
    seq = models.PositiveIntegerField()
    round = models.PositiveIntegerField(null=True, blank=True)
    type = models.CharField(max_length=32)
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    data = models.JSONField(default=dict)
    at = models.DateTimeField()

    class Meta:
        ordering = ["game", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="unique_seq_per_game"),
        ]

    def __str__(self) -> str:
        return f"{self.game_id} #{self.seq} {self.type}"


class Result(models.Model):
    """One seat's result in a finished game, written by the transaction that ends it:
    the place and the final score, and for a rated game the rating that seat counted
    for (`key`: its player's, or its bot strategy's) before and after. A player's
    history is read from here. The id grows in the order ratings were updated, which
    the recompute follows."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="results")
    seat = models.PositiveSmallIntegerField()
    # The seat's player, kept when a bot finished the game for them; else the bot.
    player = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.PROTECT, related_name="results"
    )
    bot = models.CharField(max_length=16, null=True, blank=True)  # noqa: DJ001
    key = models.CharField(max_length=64)  # players.models.Rating.key
    # Its place in the rating update: by the final score, but a seat whose player
    # forfeited (`forfeited`) places last (`players.rating.places`).
    place = models.PositiveSmallIntegerField()
    # Partners: the seat's team (0: seats 0 and 2; 1: seats 1 and 3), whose result the
    # rating update takes as one (`players.rating.rate_teams`); NULL in a classic game.
    team = models.PositiveSmallIntegerField(null=True, blank=True)
    points = models.PositiveIntegerField()
    finished_at = models.DateTimeField()
    rated = models.BooleanField()
    # Why a game finished unrated (`games.ratings.rules.UNRATED_REASONS`); NULL when rated,
    # and for unrated games that finished before reasons were kept.
    unrated_reason = models.CharField(max_length=32, null=True, blank=True)  # noqa: DJ001
    # The seat's player left the game, or lost the seat to timeouts and never took it
    # back: a bot finished it for them, and they placed last.
    forfeited = models.BooleanField(default=False)
    # Which humans played the game (`games.ratings.writes.humans_of`): equal for two
    # games of the same humans.
    humans = models.CharField(max_length=32, default="", blank=True)
    mu_before = models.FloatField(null=True, blank=True)
    sigma_before = models.FloatField(null=True, blank=True)
    mu_after = models.FloatField(null=True, blank=True)
    sigma_after = models.FloatField(null=True, blank=True)
    # The rated games of `key` with this one.
    games_after = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["game", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seat"], name="one_result_per_seat"),
        ]
        indexes = [
            models.Index(fields=["key", "-finished_at"], name="result_history"),
        ]

    def __str__(self) -> str:
        return f"{self.game_id} seat {self.seat}: place {self.place}"


class RatedPair(models.Model):
    """Two humans who finished a rated game together (their player ids, `low` the
    smaller), one row per pair of its humans: what the repeat limit counts
    (`games.ratings.writes.lock_ratings`) and the graph the staff's closed groups are
    found in (`games.ratings.groups`). An annulled game's rows go with its rating."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    low = models.CharField(max_length=64)
    high = models.CharField(max_length=64)
    finished_at = models.DateTimeField()

    class Meta:
        indexes = [
            # The repeat limit's count, run by every rated game's ending move: at most
            # REPEATS_PER_WINDOW rows per pair in any window.
            models.Index(fields=["low", "high", "finished_at"], name="rated_pair_recent"),
            models.Index(fields=["finished_at"], name="rated_pair_finished"),
        ]

    def __str__(self) -> str:
        return f"{self.low} with {self.high} in {self.game_id}"


class RatingAnnulment(models.Model):
    """An operator annulled the rating of a finished game
    (`games.ratings.annulment.game_rating_annul`): who, when and why. The game's results say
    it too (`Result.unrated_reason`)."""

    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="annulment")
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Kept as it was, should the staff user be deleted.
    by_username = models.CharField(max_length=150)
    at = models.DateTimeField()
    reason = models.CharField(max_length=200)
    # The games re-rated after it, and the ratings that moved.
    games_rerated = models.PositiveIntegerField(default=0)
    ratings_changed = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"rating of {self.game_id} annulled by {self.by_username}"


class StreamTicket(models.Model):
    """A one-time pass to a game's stream (or, with no game, to the player's lobby
    stream) for a browser, whose EventSource cannot send an Authorization header:
    valid for one player, one stream and 60 seconds. Only the ticket's hash is
    stored. One without a session (made before sessions were) opens nothing."""

    ticket_hash = models.CharField(max_length=64, unique=True)
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    # The device's session that asked for it: its stream ends when that one signs out.
    session = models.ForeignKey(
        PlayerSession, null=True, on_delete=models.CASCADE, related_name="+"
    )
    # None: the ticket opens the player's lobby stream, not a game's.
    game = models.ForeignKey(
        Game, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    expires_at = models.DateTimeField(db_index=True)
    used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"stream ticket for {self.game_id or 'the lobby'} ({self.player_id})"


class Heartbeat(models.Model):
    """When a periodic job last ran, one row per job, in the database so that every
    process and host sees it (``/healthz`` reads the sweeper's to tell whether beat
    is alive)."""

    SWEEP = "sweep_overdue"
    # Followed by a Celery queue's name: when a worker last ran that queue's heartbeat.
    QUEUE = "queue:"

    name = models.CharField(max_length=64, primary_key=True)
    at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.name} at {self.at:%Y-%m-%d %H:%M:%S}"


# Table talk, reports and invites: models of their own module, registered here.
from games.talk.models import GameInvite, Report, TableMessage  # noqa: E402, F401
