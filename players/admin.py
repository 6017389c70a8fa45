"""Players in the staff dashboard: read only, but for the Django user a staff member's
player is linked to (which lets that player read complete logs through the API)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from players import services
from players.models import Player


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin[Player]):
    list_display = (
        "name",
        "games_played",
        "games_won",
        "rounds_won",
        "points",
        "user",
        "created_at",
    )
    search_fields = ("name", "user__username")
    list_filter = ("created_at",)
    date_hierarchy = "created_at"
    fields = (
        "id",
        "name",
        "user",
        "games_played",
        "games_won",
        "rounds_won",
        "points",
        "created_at",
    )
    readonly_fields = (
        "id",
        "name",
        "games_played",
        "games_won",
        "rounds_won",
        "points",
        "created_at",
    )
    raw_id_fields = ("user",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # players sign up through the API

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # their games keep them

    def save_model(self, request: HttpRequest, obj: Player, form: Any, change: bool) -> None:
        services.player_link_user(player_id=obj.pk, user=obj.user)
