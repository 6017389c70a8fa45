"""HTTP endpoints for games. Thin: validate the shape, call a service or selector,
render. No rule of the game lives here."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import presenters, reading, replay, selectors, services, standings
from games.engine import GameState, MalformedMove, Move, parse_move
from games.engine.moves import ACCEPT, CHALLENGE
from games.errors import from_engine
from games.live import access, lobby, sse
from games.live.hub import Snapshot
from games.models import BotStrategy, Game, GameStatus, Result
from games.results import UNRATED_REASONS
from games.serializers import (
    CHALLENGE_EXAMPLES,
    GAME_ID,
    INVITE_CODE,
    JOIN_BY_CODE_EXAMPLES,
    MATCHMAKING_EXAMPLES,
    MOVE_EXAMPLES,
    BotIn,
    ChallengeIn,
    EventsPageOut,
    EventsQuery,
    GameCreateIn,
    GameSummaryOut,
    GameViewOut,
    JoinByCodeIn,
    LogOut,
    MatchCancelOut,
    MatchmakingIn,
    MoveIn,
    MoveResultOut,
    ReplayOut,
    ReplayQuery,
    StreamTicketOut,
)
from games.stream_examples import (
    GAME_STREAM_EXAMPLES,
    LOBBY_STREAM_EXAMPLES,
    STREAM_AUTH,
    stream_answer,
)
from players.api import (
    OPPONENTS_HELP,
    PAGE_PARAMETER,
    PROVISIONAL_HELP,
    RANK_HELP,
    PlayerNameOut,
    RatingChangeOut,
    RatingOut,
    StatsOut,
    stats_json,
)
from players.auth import current_player
from unoservice import metrics
from unoservice.errors import Forbidden, InvalidRequest, LogCorrupt, NotFound
from unoservice.idempotency.http import idempotent
from unoservice.schema import COMMON_HEADERS, IDEMPOTENT_HEADERS, error_responses
from unoservice.throttling import count_invite_code_attempt

LONG_POLL_INTERVAL = 0.2
MAX_EVENTS_PER_PAGE = 500

# The answers a move (or a challenge decision) may get.
_MOVE_ERRORS = (400, 401, 403, 404, 409, 415, 422, 429)
_MOVE_TEXT = {
    400: "invalid_request: `version` missing or not a non-negative integer, an unknown "
    "action, a field the action does not take, a missing card, colour or target, an "
    "unknown card id",
    403: "forbidden: you hold no seat in this game",
    404: "not_found: no such game, or a private game you are not among the players of",
    409: "wrong_phase (the game is not playing, or a pending decision is not this one), "
    "seat_taken_over (a bot holds your seat after your timeouts: `details.resume` is the "
    "path to POST to take it back, `details.seat` the seat), stale_version "
    "(`details.version` is the current one), not_your_turn, or idempotency_key_in_use",
    422: "illegal_move (the rules forbid it, the message says why) or idempotency_key_reused",
}


def _validated(serializer_class: type, data: Any) -> dict[str, Any]:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def _view(game: Game, request: Request, state: GameState | None = None) -> dict[str, Any]:
    """The caller's view of `game`, with who is present now."""
    presence = selectors.presence_of(game)
    return presenters.game_view(game, current_player(request), state, presence=presence)


# A private game is, to a reader who may not see it, a game that does not exist.
_HIDDEN = (
    "not_found: no such game, or a private game you are not among the players of, "
    "without its invite code as `code`"
)
_WRONG_CODES = (
    "rate_limited: too many requests, or too many wrong invite codes from you or your address"
)
_TOO_MANY_STREAMS = (
    f"{_WRONG_CODES}; too_many_streams: the player or the address holds as many open "
    "streams and waiting long polls as its cap"
)
# An action on a private game the caller may not see: 404, where a public game says 403.
_HIDDEN_TO_ACTIONS = "not_found: no such game, or a private game you are not among the players of"


def _readable(request: Request, game_id: object) -> Game:
    """The game, when the caller may see it (`games.privacy`); else `NotFound`."""
    game = selectors.game_get(game_id)
    player = current_player(request)
    reading.admit(
        game,
        player=player,
        staff=player.is_staff,
        code=request.query_params.get("code"),
        meta=request.META,
    )
    return game


def _view_response(outcome: services.Outcome, request: Request, code: int = 200) -> Response:
    return Response(_view(outcome.game, request, outcome.state), status=code)


def _move_response(outcome: services.Outcome, request: Request) -> Response:
    viewer = outcome.game.seat_of(current_player(request))
    return Response(
        {
            "game": _view(outcome.game, request, outcome.state),
            "events": presenters.events_json(outcome.events, viewer),
        }
    )


# DRF's stubs make its generic views generic; at runtime they take no type argument.
class GamesView(generics.ListAPIView):  # type: ignore[type-arg]
    """``GET /games`` (lobby and history) and ``POST /games`` (create, as host)."""

    serializer_class = GameSummaryOut
    # Only names the model for the schema: the games come from `selectors.game_list`.
    queryset = Game.objects.none()

    @extend_schema(
        parameters=[
            # An empty value counts as none given (`?status=&page=` is the first page
            # of every game), as an HTML form would send it.
            OpenApiParameter(
                "status",
                {"type": "string", "enum": [*GameStatus.values, ""]},
                description="only games in this status",
            ),
            OpenApiParameter(
                "mine",
                {"anyOf": [{"type": "boolean"}, {"type": "string", "enum": [""]}]},
                description="only games I sit in",
            ),
            OpenApiParameter(
                "page",
                {
                    "anyOf": [
                        {"type": "integer", "minimum": 1},
                        {"type": "string", "enum": ["last", ""]},
                    ]
                },
                description="a page number (50 games a page), or 'last'",
            ),
            *COMMON_HEADERS,
        ],
        summary="List games",
        description="The lobby and the history: every game, newest first, 50 a page, as "
        "summaries without cards. Private games are listed only to their players. "
        "`status=waiting` lists the games that still take "
        "players; `mine=true` only those in which you hold a seat (a seat a bot took over "
        "from you does not count). Any player may list. An empty parameter counts as "
        "absent; an unknown status or a `mine` other than true, false, 1 or 0 is a 400.",
        responses={
            200: GameSummaryOut(many=True),
            **error_responses(400, 401, 404, 429, descriptions={404: "not_found: no such page"}),
        },
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        games = selectors.game_list(viewer=current_player(request), filters=request.query_params)
        page = self.paginate_queryset(games)
        assert page is not None
        results = [presenters.game_summary(game) for game in page]
        return self.get_paginated_response(results)

    @extend_schema(
        summary="Create a game",
        description="Creates a waiting game with you as its host at seat 0 and answers "
        "with your view of it. Every field is optional: 2-10 seats (4), the target score "
        "(500; 0 plays a single round), a turn timer in seconds (none) and the house "
        "rules (all off). `visibility: private` makes a game that the lobby lists only "
        "to its players and that only they and holders of its `invite_code` (in your "
        "view) may watch; `rated` (true) says whether it counts for ratings. `seed` "
        "fixes every deal, so whoever picks it knows every hand: "
        "only staff may send it (403), unless the service runs in development. A key "
        "the body does not take is a 400. You may host or sit in at most 10 waiting or "
        "running games; an eleventh is 409 too_many_games.",
        request=GameCreateIn,
        parameters=IDEMPOTENT_HEADERS,
        responses={
            201: GameViewOut,
            **error_responses(
                400,
                401,
                403,
                409,
                415,
                422,
                429,
                descriptions={
                    403: "forbidden: only staff may choose a game's seed",
                    409: "too_many_games, or idempotency_key_in_use",
                },
            ),
        },
    )
    def post(self, request: Request) -> Response:
        def create() -> Response:
            body = _validated(GameCreateIn, request.data)
            outcome = services.game_create(host=current_player(request), **body)
            return _view_response(outcome, request, status.HTTP_201_CREATED)

        return idempotent(request, create)


class GameDetailView(APIView):
    @extend_schema(
        summary="Get a game",
        description="Your view of the game: the settings, the seats with their card "
        "counts and scores, the table, whose turn it is and what decision is pending. "
        "When you hold a seat, `you` has your hand and every move you may make now "
        "(`legal_moves`); for a spectator it is null. Any player may look at any public "
        "game; a private one only its players, staff, and spectators who send its "
        "invite code as `code` (anyone else gets 404, as for a game that does not "
        "exist). Send the `version` with your next move.",
        parameters=[GAME_ID, INVITE_CODE, *COMMON_HEADERS],
        responses={
            200: GameViewOut,
            **error_responses(401, 404, 429, descriptions={404: _HIDDEN, 429: _WRONG_CODES}),
        },
    )
    def get(self, request: Request, game_id: str) -> Response:
        return Response(_view(_readable(request, game_id), request))


def _seat_action_view(
    service: Callable[..., services.Outcome],
    statuses: tuple[int, ...],
    summary: str,
    description: str,
    errors: dict[int, str],
    *,
    code: int = status.HTTP_200_OK,
) -> type[APIView]:
    """A POST that changes who sits at a table and answers, with `code`, with the
    caller's view of the game the service returns."""

    class SeatActionView(APIView):
        @extend_schema(
            summary=summary,
            description=f"{description} No body.",
            request=None,
            parameters=[GAME_ID, *IDEMPOTENT_HEADERS],
            responses={code: GameViewOut, **error_responses(*statuses, descriptions=errors)},
        )
        def post(self, request: Request, game_id: str) -> Response:
            game_uuid = selectors.parse_game_id(game_id)
            return idempotent(
                request,
                lambda: _view_response(
                    service(game_id=game_uuid, player=current_player(request)), request, code
                ),
            )

    return SeatActionView


_JOIN_CONFLICTS = (
    "wrong_phase (the game has started), game_full, too_many_games (you already sit in "
    "10 waiting or running games) or idempotency_key_in_use"
)

GameJoinView = _seat_action_view(
    services.game_join,
    (400, 401, 404, 409, 422, 429),
    "Take the next free seat",
    "Seats you at the next free seat of a waiting game and answers with your view. "
    "Joining a game you already sit in changes nothing. A private game is joined with "
    "its invite code (`POST /games/join`): by id it is 404 to anyone not among its "
    "players.",
    {404: _HIDDEN, 409: _JOIN_CONFLICTS},
)


class GameJoinByCodeView(APIView):
    @extend_schema(
        operation_id="games_join_by_code",
        summary="Join a game by its invite code",
        description="Seats you at the next free seat of the waiting or running game whose "
        "invite code you send, with the same rules and errors as joining by id, and "
        "answers with your view (`invite_code` included, to pass on). The code is read "
        "without regard to case, spaces or hyphens. An unknown code is 404; after 10 "
        "wrong codes in a minute from you, or 30 from your address whatever the "
        "accounts, every code sent is 429 until the minute is over, which puts "
        "guessing among the 31^8 codes out of reach.",
        request=JoinByCodeIn,
        examples=JOIN_BY_CODE_EXAMPLES,
        parameters=IDEMPOTENT_HEADERS,
        responses={
            200: GameViewOut,
            **error_responses(
                400,
                401,
                404,
                409,
                415,
                422,
                429,
                descriptions={
                    400: "invalid_request: `code` missing, not a string, longer than 32 "
                    "characters, or not 8 characters of the code alphabet once spaces "
                    "and hyphens are left out",
                    404: "not_found: no waiting or running game has this code",
                    409: _JOIN_CONFLICTS,
                    429: _WRONG_CODES,
                },
            ),
        },
    )
    def post(self, request: Request) -> Response:
        def join() -> Response:
            typed = _validated(JoinByCodeIn, request.data)["code"]
            attempt = count_invite_code_attempt(player=current_player(request), meta=request.META)
            game_id = selectors.open_game_id_by_code(typed)  # NotFound: a wrong code
            attempt.release()
            outcome = services.game_join(
                game_id=game_id, player=current_player(request), invited=True
            )
            return _view_response(outcome, request)

        return idempotent(request, join)


GameStartView = _seat_action_view(
    services.game_start,
    (400, 401, 403, 404, 409, 422, 429),
    "Deal round 1 (host only)",
    "The host starts the game with the seats taken, humans or bots (at least 2): round "
    "1 is dealt and the game is playing. Answers with your view.",
    {
        403: "forbidden: only the host may start the game",
        404: _HIDDEN_TO_ACTIONS,
        409: "wrong_phase (already started, or fewer than 2 seats) or idempotency_key_in_use",
    },
)
GameLeaveView = _seat_action_view(
    services.game_leave,
    (400, 401, 403, 404, 409, 422, 429),
    "Leave; a bot takes a running seat",
    "Before the start your seat is freed and the seats after it move up; a leaving host "
    "hands the game to the next human, and a game left without humans is abandoned. "
    "Once the game runs, a greedy bot takes your seat for good and the game goes on. A "
    "seat a bot took over after your timeouts may be left too, giving up the right to "
    "resume it. When the last human leaves a running game, it pauses if a timed-out "
    "player may still resume, and is abandoned otherwise. Answers with your view, "
    "usually a spectator's.",
    {
        403: "forbidden: you hold no seat in this game",
        404: _HIDDEN_TO_ACTIONS,
        409: "wrong_phase (the game is over) or idempotency_key_in_use",
    },
)
GameResumeView = _seat_action_view(
    services.seat_resume,
    (400, 401, 403, 404, 409, 422, 429),
    "Take back the seat a bot took over after your timeouts",
    "Three timeouts in a row hand your seat to a bot; this gives it back to you, at any "
    "time while the game runs. Your run of timeouts starts again from zero, and a game "
    "paused for want of humans goes on. Answers with your view.",
    {
        403: "forbidden: you hold no seat in this game",
        404: _HIDDEN_TO_ACTIONS,
        409: "wrong_phase (the game is not running, or no seat of yours is held by a bot "
        "after timeouts: a seat you left cannot be resumed) or idempotency_key_in_use",
    },
)
GameRematchView = _seat_action_view(
    services.game_rematch,
    (400, 401, 403, 404, 409, 422, 429),
    "Play again: the next game with the same settings",
    "Once a game is over (finished, or abandoned after its start), any of its players "
    "asks for the next game with the same settings (seats, target score, turn timer, "
    "house rules) and a new deal. The first to ask creates it, hosts it at seat 0 and "
    "gets back the bots the game was created with; the game then shows the new game's "
    "id as `rematch`, and its log gains `rematch_offered`. Whoever asks later takes the "
    "next free seat of that same game, as a join does; asking again once seated there "
    "changes nothing (a private game's rematch is joined so without its code). Every "
    "success answers 201 with your view of the new game. A player who left the game "
    "cannot ask; a player whose seat a bot took over after their timeouts can. The "
    "expert bots brought back count towards the 9 you may have in your waiting and "
    "running games.",
    {
        403: "forbidden: you held no seat in this game, or you left it",
        404: _HIDDEN_TO_ACTIONS,
        409: "wrong_phase (the game is not over, it was abandoned before its start, or the "
        "rematch has already started), game_full (every seat of the rematch is taken), "
        "too_many_games, too_many_bots (you would get back more expert bots than you may "
        "have) or idempotency_key_in_use",
    },
    code=status.HTTP_201_CREATED,
)


class MatchmakingView(APIView):
    @extend_schema(
        operation_id="matchmaking_find",
        summary="Quick match: a seat in a game with these settings",
        description="Seats you in the oldest public quick-match game that waits with "
        "exactly these settings and has a free seat, or creates one that you host at "
        "seat 0, and answers with your view. Every field is optional, with the defaults "
        "of creating a game: 2-10 seats (4), the target score (500; 0 plays one round) "
        "and the house rules (all off); quick-match games have no turn timer, are public "
        "and rated. The game starts by itself as soon as its last seat is taken. "
        "`bots_after` (5-600 seconds, default 30; null for never) applies when your "
        "request creates the game: that long after its first seat was taken, its empty "
        "seats go to greedy bots and it starts (`bots_at` in the view; a game you join "
        "keeps the time its creator chose). Requests that arrive together fill one game "
        "before another is opened. Asking again while you wait in a quick-match game "
        "with the same settings answers that game and changes nothing. Only games made "
        "by quick match are matched, never games created with `POST /games`. A key the "
        "body does not take is a 400. Quick-match seats count towards the 10 waiting or "
        "running games you may sit in.",
        request=MatchmakingIn,
        examples=MATCHMAKING_EXAMPLES,
        parameters=IDEMPOTENT_HEADERS,
        responses={
            200: GameViewOut,
            **error_responses(
                400,
                401,
                409,
                415,
                422,
                429,
                descriptions={
                    400: "invalid_request: a field out of its range or of the wrong type, "
                    "an unknown rule, or a key the body does not take (`details.fields` "
                    "names each)",
                    409: "too_many_games (you already sit in 10 waiting or running "
                    "games) or idempotency_key_in_use",
                },
            ),
        },
    )
    def post(self, request: Request) -> Response:
        def find() -> Response:
            body = _validated(MatchmakingIn, request.data)
            outcome = services.match_find(player=current_player(request), **body)
            return _view_response(outcome, request)

        return idempotent(request, find)


class MatchmakingCancelView(APIView):
    @extend_schema(
        operation_id="matchmaking_cancel",
        summary="Stop waiting for a quick match",
        description="Leaves every quick-match game you wait in (as `POST "
        "/games/{id}/leave` does before a start: later seats move up, the host role "
        "passes on, a game left without humans is abandoned) and answers with their ids "
        "as `left`. A quick-match game that has started is left with `POST "
        "/games/{id}/leave` instead. No body.",
        request=None,
        parameters=IDEMPOTENT_HEADERS,
        responses={
            200: MatchCancelOut,
            **error_responses(
                400,
                401,
                409,
                422,
                429,
                descriptions={
                    409: "wrong_phase (you wait in no quick-match game) or idempotency_key_in_use",
                },
            ),
        },
    )
    def post(self, request: Request) -> Response:
        def cancel() -> Response:
            left = services.match_cancel(player=current_player(request))
            return Response({"left": [str(game_id) for game_id in left]})

        return idempotent(request, cancel)


class GameBotsView(APIView):
    @extend_schema(
        summary="Add a bot (host only)",
        description="The host seats a bot of the strategy named at the next free seat, "
        "while the game waits. Answers with your view. The expert bots of the waiting "
        "and running games you play in may be at most 9 (an operator's setting): one "
        "more is 409 too_many_bots.",
        request=BotIn,
        parameters=[GAME_ID, *IDEMPOTENT_HEADERS],
        responses={
            201: GameViewOut,
            **error_responses(
                400,
                401,
                403,
                404,
                409,
                415,
                422,
                429,
                descriptions={
                    403: "forbidden: only the host may add bots",
                    404: _HIDDEN_TO_ACTIONS,
                    409: "wrong_phase (the game has started), game_full, too_many_bots (an "
                    "expert beyond the ones you may have) or idempotency_key_in_use",
                },
            ),
        },
    )
    def post(self, request: Request, game_id: str) -> Response:
        game_uuid = selectors.parse_game_id(game_id)

        def add_bot() -> Response:
            body = _validated(BotIn, request.data)
            outcome = services.game_add_bot(
                game_id=game_uuid, player=current_player(request), strategy=body["strategy"]
            )
            return _view_response(outcome, request, status.HTTP_201_CREATED)

        return idempotent(request, add_bot)


def _parse_move_body(data: Any) -> tuple[int, Move]:
    if not isinstance(data, dict):
        raise InvalidRequest("the body must be a JSON object")
    version = data.get("version")
    # Checked by hand, not by a serializer: this runs on every move.
    if type(version) is not int or version < 0:
        problem = "required" if "version" not in data else "must be a non-negative integer"
        raise InvalidRequest(f"version: {problem}", details={"fields": {"version": [problem]}})
    try:
        return version, parse_move(data)
    except MalformedMove as error:
        raise from_engine(error) from None


class CountsRejectedMoves(APIView):
    """A view that takes moves: every refusal is counted by its error code."""

    def handle_exception(self, exc: Exception) -> Response:
        response = super().handle_exception(exc)
        error = response.data.get("error") if isinstance(response.data, dict) else None
        code = error.get("code") if isinstance(error, dict) else None
        metrics.MOVES_REJECTED.labels(str(code or response.status_code)).inc()
        return response


class GameMovesView(CountsRejectedMoves):
    @extend_schema(
        summary="Make a move",
        description="Sends one move, with the game's `version` you decided it on. The "
        "simplest correct client sends one of `you.legal_moves` from the game view, plus "
        "`version` (and `uno: true` when playing its second-to-last card). Answers with "
        "your new view and the events the move caused, as you may see them: a skip, the "
        "draw a Draw Two forces, the end of the round, the next deal. Checked in this "
        "order: the body's shape (400), your seat (403, or 409 seat_taken_over in a "
        "running game where a bot holds it after your timeouts: resume it first), the "
        "game's phase (409 wrong_phase), the version (409 stale_version: read the game "
        "again and decide afresh), the turn (409 not_your_turn) and the rules (422 illegal_move).",
        request=MoveIn,
        examples=MOVE_EXAMPLES,
        parameters=[GAME_ID, *IDEMPOTENT_HEADERS],
        responses={200: MoveResultOut, **error_responses(*_MOVE_ERRORS, descriptions=_MOVE_TEXT)},
    )
    def post(self, request: Request, game_id: str) -> Response:
        game_uuid = selectors.parse_game_id(game_id)

        def move() -> Response:
            version, parsed = _parse_move_body(request.data)
            outcome = services.move_apply(
                game_id=game_uuid, player=current_player(request), version=version, move=parsed
            )
            return _move_response(outcome, request)

        return idempotent(request, move)


class GameChallengeView(CountsRejectedMoves):
    @extend_schema(
        summary="Challenge or accept a Wild Draw Four",
        description="Decides a Wild Draw Four played on you: `challenge: true` "
        "challenges it, `false` accepts it. The same as sending the action `challenge` "
        "or `accept` to the moves, with the same answer and errors.",
        request=ChallengeIn,
        examples=CHALLENGE_EXAMPLES,
        parameters=[GAME_ID, *IDEMPOTENT_HEADERS],
        responses={200: MoveResultOut, **error_responses(*_MOVE_ERRORS, descriptions=_MOVE_TEXT)},
    )
    def post(self, request: Request, game_id: str) -> Response:
        game_uuid = selectors.parse_game_id(game_id)

        def decide() -> Response:
            body = _validated(ChallengeIn, request.data)
            outcome = services.move_apply(
                game_id=game_uuid,
                player=current_player(request),
                version=body["version"],
                move=CHALLENGE if body["challenge"] else ACCEPT,
            )
            return _move_response(outcome, request)

        return idempotent(request, decide)


class GameEventsView(APIView):
    @extend_schema(
        summary="Read the events after a seq (long poll)",
        description="The game's events after `after`, at most 500 a call, redacted for "
        "you while the game runs, with the game's `last_seq`: when it is beyond the last "
        "event you got, ask again from there. With `wait` and no event yet, the request "
        "is held until one comes or `wait` seconds pass (then the list is empty). Who may "
        "see the game may read its events (a private game's spectator sends its `code`); "
        "the live stream is cheaper still.",
        parameters=[GAME_ID, EventsQuery, INVITE_CODE, *COMMON_HEADERS],
        responses={
            200: EventsPageOut,
            **error_responses(
                400, 401, 404, 429, descriptions={404: _HIDDEN, 429: _TOO_MANY_STREAMS}
            ),
        },
    )
    def get(self, request: Request, game_id: str) -> Response:
        game = _readable(request, game_id)
        query = _validated(EventsQuery, request.query_params.dict())
        after, wait = query["after"], query["wait"]
        deadline = time.monotonic() + wait
        last_seq = game.last_seq
        while last_seq <= after and time.monotonic() < deadline:
            time.sleep(LONG_POLL_INTERVAL)
            last_seq = selectors.game_last_seq(game.pk)
        if last_seq != game.last_seq:
            game = selectors.game_get(game.pk)
        events = (
            selectors.events_after(game, after, MAX_EVENTS_PER_PAGE) if last_seq > after else []
        )
        viewer = game.seat_of(current_player(request))
        complete = presenters.log_is_complete(game)
        return Response(
            {
                "events": [presenters.event_json(e, viewer, complete=complete) for e in events],
                "last_seq": last_seq,
            }
        )


class GameLogView(APIView):
    @extend_schema(
        summary="Read a game's whole log",
        description="Every event from seq 1 with the game's summary. While the game runs "
        "the log is redacted for you as the events are, and the seeds are null. Once it "
        "is finished or abandoned, and always for staff, it is complete: every card, the "
        "game's seed and each round's, from which the rules replay the game exactly. The "
        "seeds come as numbers and as decimal text (`seed_text`, `seeds_text`); a game "
        "dealt with 63-bit seeds before seeds were drawn below 2^53 has the numbers null "
        "where they exceed 2^53 - 1. A private game's spectator sends its `code`.",
        parameters=[GAME_ID, INVITE_CODE, *COMMON_HEADERS],
        responses={
            200: LogOut,
            **error_responses(401, 404, 429, 500, descriptions={404: _HIDDEN, 429: _WRONG_CODES}),
        },
    )
    def get(self, request: Request, game_id: str) -> Response:
        """The whole log: redacted for the caller while the game runs; complete, with
        every card and seed, once it is over, and always for staff."""
        game = _readable(request, game_id)
        player = current_player(request)
        complete = presenters.log_is_complete(game) or player.is_staff
        viewer = game.seat_of(player)
        events = selectors.all_events(game)
        return Response(
            {
                "game": presenters.game_summary(game),
                "complete": complete,
                **replay.seeds_json(game, complete=complete),
                "events": [
                    presenters.event_json(e, viewer, complete=complete, staff=player.is_staff)
                    for e in events
                ],
            }
        )


class GameReplayView(APIView):
    @extend_schema(
        summary="The whole table after an event",
        description="Every hand and both piles as they stood after event `seq`, rebuilt "
        "from the log and the seeds. For games that are finished or abandoned, and for "
        "staff at any time. A private game's spectator sends its `code`.",
        parameters=[GAME_ID, ReplayQuery, INVITE_CODE, *COMMON_HEADERS],
        responses={
            200: ReplayOut,
            **error_responses(
                400,
                401,
                403,
                404,
                429,
                500,
                descriptions={
                    403: "forbidden: the game still runs and you are not staff",
                    404: f"{_HIDDEN}; or `seq` is past the end of the log",
                    429: _WRONG_CODES,
                },
            ),
        },
    )
    def get(self, request: Request, game_id: str) -> Response:
        """The full table after event `seq`, re-made from the log: for games that are
        over, and for staff."""
        game = _readable(request, game_id)
        if not (presenters.log_is_complete(game) or current_player(request).is_staff):
            raise Forbidden("the replay of a running game is for staff only")
        seq = _validated(ReplayQuery, request.query_params.dict())["seq"]
        if seq > game.last_seq:
            raise NotFound(f"the log ends at seq {game.last_seq}")
        try:
            table = replay.table_after(game, seq)
        except replay.ReplayMismatch as error:
            raise LogCorrupt(f"the log cannot be replayed: {error}") from None
        return Response(table.to_json())


_BAD_IDEMPOTENCY_KEY = "invalid_request: an Idempotency-Key that is not 1-255 characters"


def _event_stream(body: bytes) -> HttpResponse:
    """A stream's opening, answered whole (see `GameStreamView`)."""
    response = HttpResponse(body, content_type="text/event-stream; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


def _ticket(request: Request, game_id: Any | None) -> Response:
    """A new stream ticket of the caller: for the game, or for the lobby (None)."""
    ticket, expires_at = services.stream_ticket_issue(
        game_id=game_id, player=current_player(request)
    )
    return Response(
        {"ticket": ticket, "expires_at": expires_at.isoformat()}, status=status.HTTP_201_CREATED
    )


class GameStreamView(APIView):
    """``GET /games/{id}/stream``. The server (`unoservice.asgi`) answers it with a
    live stream before this view is reached; under a plain WSGI server (tests,
    `manage.py runserver`) this view answers with the opening of the stream alone,
    which an EventSource reopens after `retry`: a poll, but the same messages."""

    # The stream's own checks: a bearer token, a ticket or a staff session.
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]
    throttle_classes: list[type] = []

    @extend_schema(
        summary="Follow a game live (Server-Sent Events)",
        description="A stream of the game for you, seated or spectator: your view, "
        "then after every change its events (as the events endpoint shows them to you) "
        "and your new view, so a client never polls. Send a bearer token, or a stream "
        "ticket as `ticket` from a browser's EventSource. Reconnect with "
        "`Last-Event-ID` (or `after`) to get what you missed first; more than 500 events "
        "behind, you get a fresh view instead. A private game's spectator sends its "
        "`code` (with a ticket too). Errors come as JSON before the stream "
        "begins; opening a stream counts as one request against your rate limit.",
        auth=STREAM_AUTH,
        parameters=[
            GAME_ID,
            OpenApiParameter(
                "after",
                {"type": "string", "pattern": "^[0-9]*$"},
                description="resume after this seq (as the Last-Event-ID header does); "
                "empty is the same as none",
            ),
            OpenApiParameter("ticket", str, description="a stream ticket, instead of a token"),
            INVITE_CODE,
            *COMMON_HEADERS,
        ],
        responses={
            (200, "text/event-stream"): stream_answer(
                "`retry: 2000`, then `event: game` (the caller's view), then each "
                "event as `id: <seq>`, `event: <type>`, `data: <the event>` and a new `game` "
                "after each change; `: ping` at least every 15 s; `event: end` when the game "
                "is over",
                GAME_STREAM_EXAMPLES,
            ),
            **error_responses(
                400, 401, 404, 429, descriptions={404: _HIDDEN, 429: _TOO_MANY_STREAMS}
            ),
        },
    )
    def get(self, request: Request, game_id: str) -> HttpResponse:
        checked = access.open_stream(
            game_id=game_id,
            headers={name.lower(): value for name, value in request.headers.items()},
            query=request.query_params.dict(),
            meta=request.META,
        )
        if isinstance(checked, access.Refusal):
            return Response(checked.body, status=checked.status, headers=checked.headers)
        watcher, parsed_id, resume = checked
        game = selectors.game_by_id(parsed_id)
        hidden = access.hidden(game, watcher, meta=request.META)
        if hidden is not None:
            return Response(hidden.body, status=hidden.status, headers=hidden.headers)
        state = GameState.from_snapshot(game.state) if game.state is not None else None
        snapshot = Snapshot(game, state, [], selectors.presence_of(game))
        return _event_stream(sse.opening(snapshot, watcher, resume))


class GameStreamTicketView(APIView):
    @extend_schema(
        summary="A one-time ticket for a browser's EventSource",
        description="A browser's EventSource cannot send a token: this ticket opens the "
        "game's stream (as `?ticket=`) once, for you, within 60 seconds. Any player may "
        "get one for any game they may see. A ticket is a credential, so its answer is "
        "never kept for an Idempotency-Key: the same key gets a new ticket. No body. A "
        "private game's spectator sends its `code` here and again on the stream's URL.",
        request=None,
        parameters=[GAME_ID, INVITE_CODE, *IDEMPOTENT_HEADERS],
        responses={
            201: StreamTicketOut,
            **error_responses(400, 401, 404, 429, descriptions={404: _HIDDEN, 429: _WRONG_CODES}),
        },
    )
    def post(self, request: Request, game_id: str) -> Response:
        """Browsers cannot send headers with an EventSource: this ticket opens
        ``/games/{id}/stream?ticket=...`` once, for the caller, within 60 seconds."""
        game_uuid = selectors.parse_game_id(game_id)

        def issue() -> Response:
            _readable(request, game_uuid)
            return _ticket(request, game_uuid)

        # A ticket is a credential: never stored for a replay.
        return idempotent(request, issue, answer_is_secret=True)


class LobbyStreamView(APIView):
    """``GET /players/me/stream``. The server (`unoservice.asgi`) answers it with a
    live stream before this view is reached; under a plain WSGI server this view
    answers with the opening of the stream alone, which an EventSource reopens after
    `retry`."""

    # The stream's own checks: a bearer token or a lobby ticket.
    authentication_classes: list[type] = []
    permission_classes = [AllowAny]
    throttle_classes: list[type] = []

    @extend_schema(
        summary="Follow all your games from the lobby (Server-Sent Events)",
        description="One stream for a client's lobby: what happens to you across every "
        "game you sit in, as `match_found`, `game_started`, `your_turn`, `game_finished` "
        "and `rematch_offered`, each naming the game (read its view to act). It opens "
        "with `hello` (the games it follows) and a `your_turn` for each game whose turn "
        "is yours now. Send a bearer token, or a lobby ticket as `ticket` from a "
        "browser's EventSource. Events have no ids and are not replayed: on reconnection "
        "the opening says again what you must act on. Errors come as JSON before the "
        "stream begins; opening a stream counts as one request against your rate limit.",
        auth=STREAM_AUTH,
        parameters=[
            OpenApiParameter(
                "ticket", str, description="a lobby stream ticket, instead of a token"
            ),
            *COMMON_HEADERS,
        ],
        responses={
            (200, "text/event-stream"): stream_answer(
                '`retry: 2000`, `event: hello` (`{"games": [ids]}`), then '
                "`event: <type>` with `data: <json>` for `match_found` `{game}`, "
                "`game_started` `{game}`, `your_turn` `{game, turn_deadline}`, "
                "`game_finished` `{game, winner, rating}` and `rematch_offered` "
                "`{game, by}`; `: ping` at least every 15 s",
                LOBBY_STREAM_EXAMPLES,
            ),
            **error_responses(401, 429, descriptions={429: _TOO_MANY_STREAMS}),
        },
    )
    def get(self, request: Request) -> HttpResponse:
        checked = access.open_lobby_stream(
            headers={name.lower(): value for name, value in request.headers.items()},
            query=request.query_params.dict(),
            meta=request.META,
        )
        if isinstance(checked, access.Refusal):
            return Response(checked.body, status=checked.status, headers=checked.headers)
        return _event_stream(lobby.opening(checked))


class LobbyStreamTicketView(APIView):
    @extend_schema(
        summary="A one-time ticket for the lobby stream from a browser",
        description="A browser's EventSource cannot send a token: this ticket opens your "
        "lobby stream (`/players/me/stream?ticket=`) once, within 60 seconds; a game's "
        "stream does not take it. A ticket is a credential, so its answer is never kept "
        "for an Idempotency-Key: the same key gets a new ticket. No body.",
        request=None,
        parameters=[*IDEMPOTENT_HEADERS],
        responses={
            201: StreamTicketOut,
            **error_responses(400, 401, 429, descriptions={400: _BAD_IDEMPOTENCY_KEY}),
        },
    )
    def post(self, request: Request) -> Response:
        # A ticket is a credential: never stored for a replay.
        return idempotent(request, lambda: _ticket(request, None), answer_is_secret=True)


# -- ratings and history ------------------------------------------------------------


class PlayerOut(serializers.Serializer[Any]):
    id = serializers.CharField(help_text="a player's id, or bot:<strategy> for a bot strategy")
    name = serializers.CharField()
    bot = serializers.ChoiceField(
        choices=BotStrategy.values, allow_null=True, help_text="the strategy, for a bot"
    )
    rating = RatingOut()
    rank = serializers.IntegerField(min_value=1, allow_null=True, help_text=RANK_HELP)
    provisional = serializers.BooleanField(help_text=PROVISIONAL_HELP)
    opponents = serializers.IntegerField(
        min_value=0, max_value=standings.MIN_OPPONENTS_TO_RANK, help_text=OPPONENTS_HELP
    )
    stats = StatsOut()
    created_at = serializers.DateTimeField(allow_null=True, help_text="null for a bot")


class SeatResultOut(serializers.Serializer[Any]):
    seat = serializers.IntegerField(min_value=0)
    player = PlayerNameOut(allow_null=True)
    bot = serializers.ChoiceField(choices=BotStrategy.values, allow_null=True)
    place = serializers.IntegerField(
        min_value=1,
        help_text="equal final scores share a place; a seat whose player forfeited places last",
    )
    points = serializers.IntegerField(min_value=0, help_text="the final score")
    forfeited = serializers.BooleanField(
        help_text="its player left, or lost the seat to timeouts and never took it back: a "
        "bot finished the game for them, and they placed last"
    )


class HistoryEntryOut(serializers.Serializer[Any]):
    game = serializers.UUIDField()
    finished_at = serializers.DateTimeField()
    players = SeatResultOut(many=True)
    place = serializers.IntegerField(min_value=1)
    points = serializers.IntegerField(min_value=0)
    rating = RatingOut(allow_null=True, help_text="after this game; null when it was unrated")
    rating_change = RatingChangeOut(allow_null=True, help_text="null when it was unrated")
    rated = serializers.BooleanField(help_text="whether the game moved ratings")
    unrated_reason = serializers.ChoiceField(
        choices=UNRATED_REASONS,
        allow_null=True,
        help_text="why an unrated game was not rated (null for a rated game, and for "
        "unrated games that finished before reasons were kept)",
    )


def player_json(found: standings.Standing) -> dict[str, Any]:
    player = found.player
    return {
        "id": found.key,
        "name": found.name,
        "bot": found.bot,
        "rating": found.rating,
        "rank": found.rank,
        "provisional": found.provisional,
        "opponents": found.opponents,
        "stats": stats_json(player) if player is not None else standings.bot_stats(str(found.bot)),
        "created_at": None if player is None else player.created_at.isoformat(),
    }


ID_DESCRIPTION = (
    "a player's id, `me` for your own, or `bot:<strategy>` (`bot:random`, "
    "`bot:greedy`, `bot:expert`) for a bot strategy, rated as a player of its own"
)


def _standing_of(request: Request, player_id: str) -> standings.Standing:
    """The player (or bot strategy) a path names; `me` is the caller."""
    if player_id == "me":
        return standings.player_standing(current_player(request))
    return standings.standing_of(player_id)


class PlayerDetailView(APIView):
    @extend_schema(
        summary="A player's profile",
        description="Any player's (or bot strategy's) name, rating, rank and statistics. "
        f"The id is {ID_DESCRIPTION}. A malformed or unknown id is a 404.",
        parameters=[
            OpenApiParameter("player_id", str, OpenApiParameter.PATH, description=ID_DESCRIPTION),
            *COMMON_HEADERS,
        ],
        responses={200: PlayerOut, **error_responses(401, 404, 429)},
    )
    def get(self, request: Request, player_id: str) -> Response:
        return Response(player_json(_standing_of(request, player_id)))


# DRF's stubs make its generic views generic; at runtime they take no type argument.
class PlayerGamesView(generics.ListAPIView):  # type: ignore[type-arg]
    serializer_class = HistoryEntryOut
    queryset = Result.objects.none()  # names the model for the schema

    @extend_schema(
        summary="A player's finished games",
        description="The games a player (or bot strategy) finished, newest first, 50 a "
        "page, from their seat: their place (equal final scores share one; the winner "
        "is first), their final score, every seat's, and for a rated game their rating "
        "after it and what it changed (null for an unrated game). A private game is "
        "listed only to its players. "
        f"The id is {ID_DESCRIPTION}.",
        parameters=[
            OpenApiParameter("player_id", str, OpenApiParameter.PATH, description=ID_DESCRIPTION),
            PAGE_PARAMETER,
            *COMMON_HEADERS,
        ],
        responses={
            200: HistoryEntryOut(many=True),
            **error_responses(
                401, 404, 429, descriptions={404: "not_found: no such player or page"}
            ),
        },
    )
    def get(self, request: Request, player_id: str) -> Response:
        found = _standing_of(request, player_id)
        page = self.paginate_queryset(standings.history(found.key, viewer=current_player(request)))
        assert page is not None
        entries = [
            {
                "game": str(entry.game_id),
                "finished_at": entry.finished_at.isoformat(),
                "players": entry.players,
                "place": entry.place,
                "points": entry.points,
                "rating": entry.rating,
                "rating_change": entry.rating_change,
                "rated": entry.rated,
                "unrated_reason": entry.unrated_reason,
            }
            for entry in standings.history_entries(page)
        ]
        return self.get_paginated_response(entries)
