"""The lobby: creating, joining, starting and leaving games, bots added by the host,
rematches, and games among bots only."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from games import bot_costs, engine, privacy, selectors
from games.engine import EngineError, GameConfig, GameState, Rules, fair
from games.engine.rng import SEED_BITS, new_seed
from games.engine.state import PARTNERS_SEATS
from games.engine.vocabulary import (
    BotAddedData,
    PlayerJoinedData,
    PlayerLeftData,
    RematchOfferedData,
)
from games.errors import from_engine
from games.models import (
    OPEN_STATUSES,
    OVER_STATUSES,
    BotStrategy,
    Event,
    Game,
    GameMode,
    GameStatus,
    Seat,
    Visibility,
    seating_entry,
)
from games.services.common import (
    Outcome,
    _lock_game,
    _lock_waiting_for_host,
    _player,
    _round_of,
)
from games.services.invites import invite_to_rematch
from games.services.saving import append_events, commit_change
from games.services.seating import (
    _announce_seat,
    _check_open_games,
    _deal,
    _hand_to_bot,
    _lock_for_seat_holder,
    _networks,
    _note_client_seeds,
    _seat_next,
    _without_humans,
    save_seat,
)
from players.models import Player
from unoservice import codes
from unoservice.errors import (
    Forbidden,
    GameFull,
    InvalidRequest,
    NotFound,
    SettingsConflict,
    WrongPhaseError,
)

log = logging.getLogger(__name__)


# Draws of an invite code before giving up: a draw repeats an open game's code with
# odds of (open games) / 31**8, so a second draw is already a rarity.
INVITE_CODE_ATTEMPTS = 5


def game_create(
    *,
    host: Player,
    max_players: int = 4,
    target_score: int = 500,
    turn_timeout: int | None = None,
    rules: dict[str, bool] | None = None,
    seed: int | None = None,
    visibility: str = Visibility.PUBLIC,
    rated: bool = True,
    free_text: bool | None = None,
    address: str | None = None,
    mode: str = GameMode.CLASSIC,
    partners_see_hands: bool = False,
    deck: str = "classic_108",
    shuffle_hands_last_card: str = "redeal",
    wild_customizable: str = "wild",
) -> Outcome:
    """Create a waiting game with `host` at seat 0, who joined from `address` (the
    client address: `Game.networks`; None from code that seats nobody remote). Locks
    the host's player row, so that their count of open games cannot race past
    `MAX_OPEN_GAMES`.

    `free_text`: whether its players may type free text at the table (None: the
    default, on among the friends of a private game, off in a public one).

    `seed` fixes the deal, so whoever picks it can compute every hand: only staff may,
    unless the service runs with ``CLIENT_SEEDS`` (development). A private game gets
    an invite code unique among open games (a draw that repeats one is drawn again)."""
    if visibility not in Visibility.values:
        raise InvalidRequest(f"unknown visibility {visibility!r}")
    if seed is not None and not (settings.CLIENT_SEEDS or host.is_staff):
        raise Forbidden("only staff may choose a game's seed: the seed fixes every hand")
    with transaction.atomic():
        _check_open_games(host)
        return _game_insert(
            host=host,
            max_players=max_players,
            target_score=target_score,
            turn_timeout=turn_timeout,
            rules=rules,
            seed=seed,
            host_plays=True,
            visibility=visibility,
            rated=rated,
            free_text=visibility == Visibility.PRIVATE if free_text is None else free_text,
            address=address,
            mode=mode,
            partners_see_hands=partners_see_hands,
            deck=deck,
            shuffle_hands_last_card=shuffle_hands_last_card,
            wild_customizable=wild_customizable,
        )


def _game_insert(
    *,
    host: Player,
    max_players: int,
    target_score: int,
    turn_timeout: int | None,
    rules: dict[str, bool] | None,
    seed: int | None,
    host_plays: bool,
    visibility: str = Visibility.PUBLIC,
    rated: bool = True,
    free_text: bool = False,
    address: str | None = None,
    mode: str = GameMode.CLASSIC,
    partners_see_hands: bool = False,
    deck: str = "classic_108",
    shuffle_hands_last_card: str = "redeal",
    wild_customizable: str = "wild",
    duos: dict[str, str] | None = None,
) -> Outcome:
    """Insert a waiting game (in the caller's transaction); quick match builds its
    own (`_match_game_build`)."""
    if mode == GameMode.PARTNERS and max_players != PARTNERS_SEATS:
        raise SettingsConflict(f"partners is played by {PARTNERS_SEATS}: max_players must be 4")
    if partners_see_hands and mode != GameMode.PARTNERS:
        raise SettingsConflict("partners_see_hands is an option of mode partners")
    if deck != "modern_112":
        if shuffle_hands_last_card != "redeal":
            raise SettingsConflict("shuffle_hands_last_card is an option of deck modern_112")
        if wild_customizable != "wild":
            raise SettingsConflict("wild_customizable is an option of deck modern_112")
    try:
        parsed_rules = Rules.from_json(rules or {})
        GameConfig(
            max_players,
            target_score,
            parsed_rules,
            mode,  # type: ignore[arg-type]
            partners_see_hands,
            deck,  # type: ignore[arg-type]
            shuffle_hands_last_card,  # type: ignore[arg-type]
            wild_customizable,  # type: ignore[arg-type]
        )
    except EngineError as error:
        raise from_engine(error) from None
    if seed is not None and not 0 <= seed < 2**SEED_BITS:
        # Larger seeds would reach clients as numbers a double cannot hold exactly.
        problem = f"must be from 0 to 2^{SEED_BITS} - 1"
        raise InvalidRequest(f"seed: {problem}", details={"fields": {"seed": [problem]}})
    now = timezone.now()
    game = _insert_with_code(
        private=visibility == Visibility.PRIVATE,
        host=host,
        max_players=max_players,
        target_score=target_score,
        turn_timeout=turn_timeout,
        rules=parsed_rules.to_json(),
        # A chosen seed deals by the Mersenne Twister, as before (`mt19937/53`); every
        # other game commits now to a server seed it deals from with the players' own.
        seed=new_seed() if seed is None else seed,
        server_seed=fair.new_server_seed() if seed is None else "",
        client_seeds={str(host.pk): fair.new_client_seed()} if host_plays else {},
        seating=[seating_entry(host, None)] if host_plays else [],
        networks=_networks({}, [(host, address)] if host_plays else []),
        visibility=visibility,
        rated=rated,
        free_text=free_text,
        mode=mode,
        partners_see_hands=partners_see_hands,
        deck=deck,
        shuffle_hands_last_card=shuffle_hands_last_card,
        wild_customizable=wild_customizable,
        duos=duos or {},
    )
    events: list[Event] = []
    if host_plays:
        Seat.objects.create(game=game, seat=0, player=host)
        joined = engine.Event("player_joined", 0, PlayerJoinedData(player=_player(host)), None)
        events = append_events(game, [joined], now)
        game.save(update_fields=["last_seq"])
        _announce_seat(host, game)
    return Outcome(game, events)


def _insert_with_code(*, private: bool, **fields: Any) -> Game:
    """Insert the game row, with a fresh invite code when it is `private`. The code
    must be unique among open games (the database's partial unique index): a draw
    that collides, here or in a transaction racing this one, is drawn again, each
    attempt in a savepoint of its own."""
    if not private:  # no code, nothing to draw again: no savepoint either
        return Game.objects.create(invite_code=None, **fields)
    for attempt in range(1, INVITE_CODE_ATTEMPTS + 1):
        code = codes.new_code()
        try:
            with transaction.atomic():
                return Game.objects.create(invite_code=code, **fields)
        except IntegrityError:
            if attempt == INVITE_CODE_ATTEMPTS:
                raise
            log.info("invite code drawn twice among open games; drawing again")
    raise AssertionError("unreachable")


def bot_match_start(
    *,
    host: Player,
    strategies: Sequence[str],
    target_score: int = 500,
    rules: dict[str, bool] | None = None,
    seed: int | None = None,
) -> Outcome:
    """Create and start a game among bots only, hosted by `host` from outside: a
    soak test for operators, and a show to watch (an operator's command, so `seed`
    is theirs to choose). Locks the new game row."""
    if not 2 <= len(strategies) <= 10:
        raise InvalidRequest("a game among bots needs 2 to 10 bots")
    with transaction.atomic():
        created = _game_insert(
            host=host,
            max_players=len(strategies),
            target_score=target_score,
            turn_timeout=None,
            rules=rules,
            seed=seed,
            host_plays=False,
        )
        game = created.game
        for strategy in strategies:
            # The operator's: not seated on a player's behalf, so not capped.
            added = BotAddedData(strategy=strategy)
            _seat_next(game, None, strategy, "bot_added", added)
        return game_start(game_id=game.pk, player=host)


def game_join(
    *,
    game_id: uuid.UUID,
    player: Player,
    invited: bool = False,
    address: str | None = None,
    client_seed: str | None = None,
) -> Outcome:
    """Seat `player` at the next free seat, with `client_seed` for the deal (one made
    for them when None). Locks the game row.

    Joining a game one already sits in changes nothing. A private game is joined
    with its code (`invited`: the caller found the game by it) or by a friend's
    invite (`GameInvite`); to anyone else not among its players it does not exist.
    Neither does any game, to a player with a block (either way) between them and
    one of the humans seated in it: word for word as an unknown id.
    """
    with transaction.atomic():
        game = _lock_game(game_id)
        if game.seat_of(player) is not None:
            return Outcome(game, [])
        # Not `privacy.conceal`: staff too join a private game with its code only.
        if game.visibility == Visibility.PRIVATE and not (
            invited or privacy.is_player(game, player) or privacy.is_invited(game, player)
        ):
            raise NotFound("no such game")
        _check_blocks(game, player)
        if game.status != GameStatus.WAITING:
            raise WrongPhaseError("the game has already started")
        if len(game.seating) >= game.max_players:
            raise GameFull(f"all {game.max_players} seats are taken")
        _check_open_games(player)
        game.networks = _networks(game.networks, [(player, address)])
        _note_client_seeds(game, {player.pk: client_seed})
        joined = PlayerJoinedData(player=_player(player))
        events = _seat_next(game, player, None, "player_joined", joined)
    return Outcome(game, events)


def _check_blocks(game: Game, player: Player) -> None:
    """`NotFound`, as for an unknown id, when one of the humans seated in `game`
    blocks `player` or is blocked by them: a blocked player learns nothing of the
    games of who blocked them, and cannot sit down with them."""
    if selectors.blocked_at(game, player):
        raise NotFound("no such game")


def game_add_bot(*, game_id: uuid.UUID, player: Player, strategy: str) -> Outcome:
    """Seat a bot (host only, while waiting), an expert only within the host's cap
    (`bot_costs`). Locks the game row, then the host's row for an expert."""
    if strategy not in BotStrategy.values:
        raise InvalidRequest(f"unknown bot strategy {strategy!r}")
    with transaction.atomic():
        game = _lock_waiting_for_host(
            game_id,
            player,
            action="add bots",
            started="bots can only be added before the game starts",
        )
        if len(game.seating) >= game.max_players:
            raise GameFull(f"all {game.max_players} seats are taken")
        bot_costs.check_expert_bots(player, bot_costs.experts_among([strategy]))
        added = BotAddedData(strategy=strategy)
        events = _seat_next(game, None, strategy, "bot_added", added)
    return Outcome(game, events)


def game_start(*, game_id: uuid.UUID, player: Player, client_seed: str | None = None) -> Outcome:
    """Deal round 1 (host only, at least 2 seats), with the host's `client_seed` when
    they send one: the host sends theirs here, after the game's commitment was
    published (docs/fairness.md). Locks the game row."""
    with transaction.atomic():
        game = _lock_waiting_for_host(
            game_id, player, action="start the game", started="the game has already started"
        )
        if len(game.seating) < 2:
            raise WrongPhaseError("a game needs at least 2 seats to start")
        if game.mode == GameMode.PARTNERS and len(game.seating) < game.max_players:
            raise WrongPhaseError("partners starts with all four seats taken: add bots")
        if client_seed is not None and game.seat_of(player) is not None:
            _note_client_seeds(game, {player.pk: client_seed})
        return _deal(game, [], timezone.now())


def game_leave(*, game_id: uuid.UUID, player: Player) -> Outcome:
    """Leave a game. Waiting: the seat is freed (later seats move up, the host role
    passes on). Playing: a bot takes the seat for good; a player whose seat a bot
    already holds after their timeouts gives up the right to resume it. With no
    human left the game pauses when a timed-out player may still resume, and is
    abandoned otherwise. Locks the game row."""
    with transaction.atomic():
        return _leave(game_id, player, OPEN_STATUSES)


def _leave(game_id: uuid.UUID, player: Player, statuses: Sequence[str]) -> Outcome:
    """`game_leave` of a game whose status is one of `statuses` (else
    `WrongPhaseError`), in the caller's transaction; locks the game row."""
    game, seats, seat = _lock_for_seat_holder(game_id, player, statuses)
    now = timezone.now()
    round_no = _round_of(game)
    left = PlayerLeftData(player=_player(player))
    items = [engine.Event("player_left", seat.seat, left, round_no)]
    if game.status == GameStatus.WAITING:
        # Each statement names the game (`save_seat`).
        Seat.objects.filter(game_id=game.pk, seat=seat.seat).delete()
        remaining = [s for s in seats if s.pk != seat.pk]
        for number, other in enumerate(remaining):
            if other.seat != number:
                Seat.objects.filter(game_id=game.pk, seat=other.seat).update(seat=number)
                other.seat = number
        seats = remaining
        if game.host_id == player.pk:
            humans = [s.player_id for s in seats if s.player_id is not None and s.bot is None]
            if humans:
                game.host_id = humans[0]
        game.seating = [s.seating_entry() for s in seats]
        # Only the seats of the start take part in the deal: a leaver's seed goes.
        game.client_seeds = {k: v for k, v in game.client_seeds.items() if k != str(player.pk)}
    elif seat.bot is None:
        items.append(_hand_to_bot(game, seat, round_no, timed_out=False))
    else:
        seat.timed_out = False
        save_seat(game, seat, ["timed_out"])
    items += _without_humans(game, seats, now)
    if game.state is None:
        game.turn_deadline = game.bot_due_at = None
        fields = ["status", "host_id", "finished_at", "seating", "turn_deadline", "client_seeds"]
        events = commit_change(game, None, items, now, fields=fields)
    else:
        state = GameState.from_snapshot(game.state)
        events = commit_change(
            game,
            state,
            items,
            now,
            turn_changed=False,
            fields=["host_id", "seating", "paused_until"],
        )
    return Outcome(game, events)


def game_rematch(
    *,
    game_id: uuid.UUID,
    player: Player,
    address: str | None = None,
    invite: Sequence[str] = (),
) -> Outcome:
    """The next game with the same settings as a game that is over, for one of its
    players: the first to ask creates it, hosts it and gets back the bots the game
    was created with; whoever asks later joins it (`game_join`). Answers with the
    rematch. The friends of `invite` are then invited to it as `game_invite` does
    (`invite_to_rematch`: who already sits there is left out, and all of
    them once it is full or has started); one who is not a friend refuses the
    whole request.

    Locks the finished game's row first, so that players asking at once are served
    one after the other and the rematch is made once, recorded on that row with a
    `rematch_offered` event; then the caller's player row (the open-game cap) and,
    when joining, the rematch's row; and, with invites, what `game_invite` locks
    after the game's.

    Who may ask: a player who still holds their seat, or whose seat a bot holds
    after their timeouts (they never left); not a player who left. The game must
    have been played: finished, or abandoned after its start."""
    with transaction.atomic():
        game, _, seat = _lock_for_seat_holder(game_id, player, OVER_STATUSES)
        if game.started_at is None:
            raise WrongPhaseError("the game was abandoned before it started: nothing to replay")
        if game.rematch_id is not None:
            # One of the game's players: a private rematch is theirs to join too.
            joined = game_join(
                game_id=game.rematch_id, player=player, invited=True, address=address
            )
            invite_to_rematch(joined.game, player, invite)
            return joined
        _check_open_games(player)
        # The bots the game was created with, in their order. A bot that took over a
        # player's seat (its entry still names the player) does not come back: that
        # seat is the player's to take in the rematch.
        strategies = [e["bot"] for e in game.seating if e["player"] is None and e["bot"]]
        bot_costs.check_expert_bots(player, bot_costs.experts_among(strategies))
        created = _game_insert(
            host=player, **_settings_of(game), seed=None, host_plays=True, address=address
        )
        rematch = created.game
        for strategy in strategies:
            added = BotAddedData(strategy=strategy)
            created.events += _seat_next(rematch, None, strategy, "bot_added", added)
        game.rematch = rematch
        offered = RematchOfferedData(game=str(rematch.pk), by=_player(player))
        item = engine.Event("rematch_offered", seat.seat, offered, _round_of(game))
        commit_change(game, None, [item], timezone.now(), fields=["rematch"])
        invite_to_rematch(rematch, player, invite)
    return Outcome(rematch, created.events)


def _settings_of(game: Game) -> dict[str, Any]:
    """What a game was created with, but its seed: what its rematch copies. A private
    game's rematch is private too, with an invite code of its own. A partners game's
    rematch keeps its teams: partners who both play it again are dealt across the
    table again (`Game.duos`, as in the partners queue)."""
    return {
        "max_players": game.max_players,
        "target_score": game.target_score,
        "turn_timeout": game.turn_timeout,
        "rules": game.rules,
        "visibility": game.visibility,
        "rated": game.rated,
        "free_text": game.free_text,
        "mode": game.mode,
        "partners_see_hands": game.partners_see_hands,
        "deck": game.deck,
        "shuffle_hands_last_card": game.shuffle_hands_last_card,
        "wild_customizable": game.wild_customizable,
        "duos": _partners_of(game),
    }


def _partners_of(game: Game) -> dict[str, str]:
    """The human partners of a partners game, each by the other's id."""
    if game.mode != GameMode.PARTNERS:
        return {}
    ids = [entry["player"]["id"] if entry["player"] else None for entry in game.seating]
    return {
        one: other
        for seat, one in enumerate(ids)
        if one is not None and (other := ids[(seat + 2) % len(ids)]) is not None
    }
