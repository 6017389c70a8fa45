"""HTTP endpoints for games. Thin: validate the shape, call a service or selector,
render. No rule of the game lives here."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import django_filters
from django.db.models import QuerySet
from django.http import HttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import replay, selectors, services
from games.engine import GameState, MalformedMove, Move, parse_move
from games.engine.moves import ACCEPT, CHALLENGE
from games.errors import from_engine
from games.live import access, sse
from games.live.hub import Snapshot
from games.models import Game, GameStatus
from games.serializers import (
    GAME_ID,
    BotIn,
    ChallengeIn,
    EventsPageOut,
    EventsQuery,
    GameCreateIn,
    GameSummaryOut,
    GameViewOut,
    LogOut,
    MoveIn,
    MoveResultOut,
    ReplayOut,
    ReplayQuery,
    StreamTicketOut,
)
from players.auth import current_player
from unoservice.errors import Forbidden, InvalidRequest, LogCorrupt, NotFound
from unoservice.idempotency.http import idempotent
from unoservice.schema import COMMON_HEADERS, IDEMPOTENT_HEADERS, error_responses

LONG_POLL_INTERVAL = 0.2
MAX_EVENTS_PER_PAGE = 500


def _validated(serializer_class: type, data: Any) -> dict[str, Any]:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def _view_response(outcome: services.Outcome, request: Request, code: int = 200) -> Response:
    player = current_player(request)
    return Response(selectors.game_view(outcome.game, player, outcome.state), status=code)


def _move_response(outcome: services.Outcome, request: Request) -> Response:
    player = current_player(request)
    viewer = outcome.game.seat_of(player)
    return Response(
        {
            "game": selectors.game_view(outcome.game, player, outcome.state),
            "events": selectors.events_json(outcome.events, viewer),
        }
    )


class GameFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=GameStatus.choices)
    # Strict, unlike django-filter's BooleanFilter, which reads `?mine=maybe` as unset.
    mine = django_filters.TypedChoiceFilter(
        choices=[("true", "true"), ("false", "false"), ("1", "1"), ("0", "0")],
        coerce=lambda value: value in ("true", "1"),
        method="filter_mine",
        help_text="only games I sit in",
    )

    class Meta:
        model = Game
        fields = ["status"]

    def filter_mine(self, queryset: QuerySet[Game], name: str, value: bool) -> QuerySet[Game]:
        if not value:
            return queryset
        # A seat handed to a bot is no longer the player's.
        return queryset.filter(seats__player=self.request.user, seats__bot__isnull=True).distinct()


class GamesView(generics.ListAPIView):  # type: ignore[type-arg]
    """``GET /games`` (lobby and history) and ``POST /games`` (create, as host)."""

    serializer_class = GameSummaryOut
    filterset_class = GameFilter

    def get_queryset(self) -> QuerySet[Game]:
        # The host join serves games whose host no longer sits at the table.
        return Game.objects.select_related("host").order_by("-created_at")

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
        responses={
            200: GameSummaryOut(many=True),
            **error_responses(400, 401, 404, 429, descriptions={404: "not_found: no such page"}),
        },
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        queryset = self.filter_queryset(self.get_queryset())
        page = self.paginate_queryset(queryset)
        assert page is not None
        results = [selectors.game_summary(game) for game in page]
        return self.get_paginated_response(results)

    @extend_schema(
        request=GameCreateIn,
        parameters=IDEMPOTENT_HEADERS,
        responses={201: GameViewOut, **error_responses(400, 401, 409, 422, 429)},
    )
    def post(self, request: Request) -> Response:
        def create() -> Response:
            body = _validated(GameCreateIn, request.data)
            outcome = services.game_create(host=current_player(request), **body)
            return _view_response(outcome, request, status.HTTP_201_CREATED)

        return idempotent(request, create)


class GameDetailView(APIView):
    @extend_schema(
        parameters=[GAME_ID, *COMMON_HEADERS],
        responses={200: GameViewOut, **error_responses(401, 404, 429)},
    )
    def get(self, request: Request, game_id: str) -> Response:
        game = selectors.game_get(game_id)
        return Response(selectors.game_view(game, current_player(request)))


def _seat_action_view(
    service: Callable[..., services.Outcome], statuses: tuple[int, ...], summary: str
) -> type[APIView]:
    """A POST that changes who sits at the table and answers with the caller's view."""

    class SeatActionView(APIView):
        @extend_schema(
            summary=summary,
            request=None,
            parameters=[GAME_ID, *IDEMPOTENT_HEADERS],
            responses={200: GameViewOut, **error_responses(*statuses)},
        )
        def post(self, request: Request, game_id: str) -> Response:
            game_uuid = selectors.parse_game_id(game_id)
            return idempotent(
                request,
                lambda: _view_response(
                    service(game_id=game_uuid, player=current_player(request)), request
                ),
            )

    return SeatActionView


GameJoinView = _seat_action_view(
    services.game_join, (400, 401, 404, 409, 422, 429), "Take the next free seat"
)
GameStartView = _seat_action_view(
    services.game_start, (400, 401, 403, 404, 409, 422, 429), "Deal round 1 (host only)"
)
GameLeaveView = _seat_action_view(
    services.game_leave, (400, 401, 403, 404, 409, 422, 429), "Leave; a bot takes a running seat"
)
GameResumeView = _seat_action_view(
    services.seat_resume,
    (400, 401, 403, 404, 409, 422, 429),
    "Take back the seat a bot took over after your timeouts",
)


class GameBotsView(APIView):
    @extend_schema(
        request=BotIn,
        parameters=[GAME_ID, *IDEMPOTENT_HEADERS],
        responses={201: GameViewOut, **error_responses(400, 401, 403, 404, 409, 422, 429)},
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


class GameMovesView(APIView):
    @extend_schema(
        request=MoveIn,
        parameters=[GAME_ID, *IDEMPOTENT_HEADERS],
        responses={200: MoveResultOut, **error_responses(400, 401, 403, 404, 409, 422, 429)},
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


class GameChallengeView(APIView):
    @extend_schema(
        request=ChallengeIn,
        parameters=[GAME_ID, *IDEMPOTENT_HEADERS],
        responses={200: MoveResultOut, **error_responses(400, 401, 403, 404, 409, 422, 429)},
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
        parameters=[GAME_ID, EventsQuery, *COMMON_HEADERS],
        responses={200: EventsPageOut, **error_responses(400, 401, 404, 429)},
    )
    def get(self, request: Request, game_id: str) -> Response:
        game = selectors.game_get(game_id)
        query = _validated(EventsQuery, request.query_params.dict())
        after, wait = query["after"], query["wait"]
        deadline = time.monotonic() + wait
        last_seq = game.last_seq
        while last_seq <= after and time.monotonic() < deadline:
            time.sleep(LONG_POLL_INTERVAL)
            last_seq = Game.objects.filter(pk=game.pk).values_list("last_seq", flat=True).get()
        if last_seq != game.last_seq:
            game = selectors.game_get(game.pk)
        events = (
            selectors.events_after(game, after, MAX_EVENTS_PER_PAGE) if last_seq > after else []
        )
        viewer = game.seat_of(current_player(request))
        complete = selectors.log_is_complete(game)
        return Response(
            {
                "events": [selectors.event_json(e, viewer, complete=complete) for e in events],
                "last_seq": last_seq,
            }
        )


class GameLogView(APIView):
    @extend_schema(
        parameters=[GAME_ID, *COMMON_HEADERS],
        responses={200: LogOut, **error_responses(401, 404, 429)},
    )
    def get(self, request: Request, game_id: str) -> Response:
        """The whole log: redacted for the caller while the game runs; complete, with
        every card and seed, once it is over, and always for staff."""
        game = selectors.game_get(game_id)
        player = current_player(request)
        complete = selectors.log_is_complete(game) or player.is_staff
        viewer = game.seat_of(player)
        events = selectors.all_events(game)
        return Response(
            {
                "game": selectors.game_summary(game),
                "complete": complete,
                "seed": game.seed if complete else None,
                "seeds": replay.round_seeds(game) if complete else None,
                "events": [selectors.event_json(e, viewer, complete=complete) for e in events],
            }
        )


class GameReplayView(APIView):
    @extend_schema(
        parameters=[GAME_ID, ReplayQuery, *COMMON_HEADERS],
        responses={200: ReplayOut, **error_responses(400, 401, 403, 404, 429)},
    )
    def get(self, request: Request, game_id: str) -> Response:
        """The full table after event `seq`, re-made from the log: for games that are
        over, and for staff."""
        game = selectors.game_get(game_id)
        if not (selectors.log_is_complete(game) or current_player(request).is_staff):
            raise Forbidden("the replay of a running game is for staff only")
        seq = _validated(ReplayQuery, request.query_params.dict())["seq"]
        if seq > game.last_seq:
            raise NotFound(f"the log ends at seq {game.last_seq}")
        try:
            table = replay.table_after(game, seq)
        except replay.ReplayMismatch as error:
            raise LogCorrupt(f"the log cannot be replayed: {error}") from None
        return Response(table.to_json())


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
        parameters=[
            GAME_ID,
            OpenApiParameter(
                "after",
                {"type": "string", "pattern": "^[0-9]+$"},
                description="resume after this seq (as the Last-Event-ID header does)",
            ),
            OpenApiParameter("ticket", str, description="a stream ticket, instead of a token"),
            *COMMON_HEADERS,
        ],
        responses={
            (200, "text/event-stream"): OpenApiResponse(
                description="`retry: 2000`, then `event: game` (the caller's view), then each "
                "event as `id: <seq>`, `event: <type>`, `data: <the event>` and a new `game` "
                "after each change; `: ping` at least every 15 s; `event: end` when the game "
                "is over"
            ),
            **error_responses(400, 401, 404, 429),
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
        state = GameState.from_snapshot(game.state) if game.state is not None else None
        snapshot = Snapshot(game, state, [])
        response = HttpResponse(
            sse.opening(snapshot, watcher, resume), content_type="text/event-stream; charset=utf-8"
        )
        response["Cache-Control"] = "no-cache"
        response["X-Accel-Buffering"] = "no"
        return response


class GameStreamTicketView(APIView):
    @extend_schema(
        summary="A one-time ticket for a browser's EventSource",
        request=None,
        parameters=[GAME_ID, *IDEMPOTENT_HEADERS],
        responses={201: StreamTicketOut, **error_responses(400, 401, 404, 429)},
    )
    def post(self, request: Request, game_id: str) -> Response:
        """Browsers cannot send headers with an EventSource: this ticket opens
        ``/games/{id}/stream?ticket=...`` once, for the caller, within 60 seconds."""
        game_uuid = selectors.parse_game_id(game_id)

        def issue() -> Response:
            ticket, expires_at = services.stream_ticket_issue(
                game_id=game_uuid, player=current_player(request)
            )
            return Response(
                {"ticket": ticket, "expires_at": expires_at.isoformat()},
                status=status.HTTP_201_CREATED,
            )

        # A ticket is a credential: never stored for a replay.
        return idempotent(request, issue, answer_is_secret=True)
