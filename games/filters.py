"""The lobby's filters: which games a `GET /games` query asks for."""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import QuerySet

from games.models import Game, GameStatus
from players.models import Player


def strict_boolean(method: str) -> django_filters.TypedChoiceFilter:
    """A true/false/1/0 filter; anything else is refused. (django-filter's BooleanFilter
    reads `?mine=maybe` as unset.)"""
    return django_filters.TypedChoiceFilter(
        choices=[("true", "true"), ("false", "false"), ("1", "1"), ("0", "0")],
        coerce=lambda value: value in ("true", "1"),
        method=method,
    )


class GameFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=GameStatus.choices)
    mine = strict_boolean("filter_mine")
    your_turn = strict_boolean("filter_your_turn")

    class Meta:
        model = Game
        fields = ["status"]

    def __init__(self, data: Any, queryset: QuerySet[Game], *, viewer: Player) -> None:
        super().__init__(data, queryset)
        self.viewer = viewer

    def filter_mine(self, queryset: QuerySet[Game], name: str, value: bool) -> QuerySet[Game]:
        if not value:
            return queryset
        # A seat handed to a bot is no longer the player's.
        return queryset.filter(seats__player=self.viewer, seats__bot__isnull=True).distinct()

    def filter_your_turn(self, queryset: QuerySet[Game], name: str, value: bool) -> QuerySet[Game]:
        """The running games whose seat to act is the viewer's. Whose turn it is lives in
        the engine snapshot, which SQL does not read: the viewer's running games (a
        player sits in at most `MAX_OPEN_GAMES`) are read in one query and asked."""
        if not value:
            return queryset
        running = (
            queryset.filter(
                status=GameStatus.PLAYING,
                paused_until__isnull=True,
                seats__player=self.viewer,
                seats__bot__isnull=True,
            )
            .select_related(None)
            .only("id", "status", "paused_until", "state", "seating")
        )
        waiting_on_them = [game.pk for game in running if game.is_turn_of(self.viewer)]
        return queryset.filter(pk__in=waiting_on_them)
