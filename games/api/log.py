"""A game's record: the events after a seq (a long poll), the whole log, and the
table as it stood after any event."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games import deals, presenters, replay, selectors
from games.api import openapi_text as text
from games.api.common import readable, validated
from games.models import Game
from games.serializers import (
    GAME_ID,
    INVITE_CODE,
    EventsPageOut,
    EventsQuery,
    LogOut,
    ReplayOut,
    ReplayQuery,
)
from players.auth import current_player
from unoservice import replica
from unoservice.errors import Forbidden, LogCorrupt, NotFound
from unoservice.schema import COMMON_HEADERS, error_responses

LONG_POLL_INTERVAL = 0.2
MAX_EVENTS_PER_PAGE = 500

T = TypeVar("T")


def settled(game: Game, read: Callable[[], T]) -> T:
    """`read()` of `game`'s log, from the read replica when the game is over.

    `game` is the primary's row: whether it is over, which decides that every card
    may be shown, is never a lagging answer. Over is for good, so all the replica
    can hold of the game's log are events of a game whose every card may be shown;
    and it is read only once it has the game's last event (the row and its events
    are written in one transaction), so no log is ever served cut short."""
    return replica.lagging(
        read,
        when=presenters.log_is_complete(game),
        caught_up=lambda: selectors.log_reaches(game.pk, game.last_seq),
    )


class GameEventsView(APIView):
    @extend_schema(
        **text.READ_EVENTS,
        parameters=[GAME_ID, EventsQuery, INVITE_CODE, *COMMON_HEADERS],
        responses={
            200: EventsPageOut,
            **error_responses(400, 401, 404, 429, descriptions=text.READ_EVENTS_ERRORS),
        },
    )
    def get(self, request: Request, game_id: str) -> Response:
        game = readable(request, game_id)
        query = validated(EventsQuery, request.query_params.dict())
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
        **text.READ_LOG,
        parameters=[GAME_ID, INVITE_CODE, *COMMON_HEADERS],
        responses={
            200: LogOut,
            **error_responses(401, 404, 429, 500, descriptions=text.READ_LOG_ERRORS),
        },
    )
    def get(self, request: Request, game_id: str) -> Response:
        """The whole log: redacted for the caller while the game runs; complete, with
        every card and seed, once it is over; every card always for staff, who see
        the seeds only once it is over, as everyone does."""
        game = readable(request, game_id)
        player = current_player(request)
        complete = presenters.log_is_complete(game) or player.is_staff

        def log() -> dict[str, Any]:
            viewer = game.seat_of(player)
            events = selectors.all_events(game)
            return {
                "game": presenters.game_summary(game, player),
                "complete": complete,
                **replay.seeds_json(game, revealed=presenters.log_is_complete(game)),
                "deal_commitment": deals.commitment(game),
                "deal": deals.deal_json(game),
                "events": [
                    presenters.event_json(e, viewer, complete=complete, staff=player.is_staff)
                    for e in events
                ],
            }

        return Response(settled(game, log))


class GameReplayView(APIView):
    @extend_schema(
        **text.REPLAY_TABLE,
        parameters=[GAME_ID, ReplayQuery, INVITE_CODE, *COMMON_HEADERS],
        responses={
            200: ReplayOut,
            **error_responses(400, 401, 403, 404, 429, 500, descriptions=text.REPLAY_TABLE_ERRORS),
        },
    )
    def get(self, request: Request, game_id: str) -> Response:
        """The full table after event `seq`, re-made from the log: for games that are
        over, and for staff."""
        game = readable(request, game_id)
        if not (presenters.log_is_complete(game) or current_player(request).is_staff):
            raise Forbidden("the replay of a running game is for staff only")
        seq = validated(ReplayQuery, request.query_params.dict())["seq"]
        if seq > game.last_seq:
            raise NotFound(f"the log ends at seq {game.last_seq}")
        try:
            table = settled(game, lambda: replay.table_after(game, seq))
        except replay.ReplayMismatch as error:
            raise LogCorrupt(f"the log cannot be replayed: {error}") from None
        return Response(table.to_json())
