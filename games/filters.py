"""The lobby's filters: which games a `GET /games` query asks for."""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import QuerySet

from games.models import Game, GameStatus
from players.models import Player


class GameFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=GameStatus.choices)
    # Strict, unlike django-filter's BooleanFilter, which reads `?mine=maybe` as unset.
    mine = django_filters.TypedChoiceFilter(
        choices=[("true", "true"), ("false", "false"), ("1", "1"), ("0", "0")],
        coerce=lambda value: value in ("true", "1"),
        method="filter_mine",
    )

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
