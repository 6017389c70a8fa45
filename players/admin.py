"""Players in the staff dashboard: read only, but for the Django user a staff member's
player is linked to (which lets that player read complete logs through the API), and
for disabling a player (after a page that asks why) or enabling them again, through
`players.services`, recorded with the staff member's username."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from players import services
from players.models import Player


class DisableForm(forms.Form):
    reason = forms.CharField(
        max_length=200,
        help_text="Kept with the player and your username; the player is told only that "
        "they are disabled.",
        widget=forms.TextInput(attrs={"size": 60, "autofocus": True}),
    )


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin[Player]):
    list_display = (
        "name",
        "games_played",
        "games_won",
        "rounds_won",
        "points",
        "user",
        "disabled_at",
        "created_at",
    )
    search_fields = ("name", "user__username")
    list_filter = (("disabled_at", admin.EmptyFieldListFilter), "created_at")
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
        "disabled_at",
        "disabled_by",
        "disabled_reason",
    )
    readonly_fields = (
        "id",
        "name",
        "games_played",
        "games_won",
        "rounds_won",
        "points",
        "created_at",
        "disabled_at",
        "disabled_by",
        "disabled_reason",
    )
    raw_id_fields = ("user",)
    actions = ("disable_players", "enable_players")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # players sign up through the API

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # their games keep them

    def save_model(self, request: HttpRequest, obj: Player, form: Any, change: bool) -> None:
        services.player_link_user(player_id=obj.pk, user=obj.user)

    # -- actions (through the services) ---------------------------------------------

    @admin.action(description="Disable the selected players…", permissions=["change"])
    def disable_players(
        self, request: HttpRequest, queryset: QuerySet[Player]
    ) -> HttpResponse | None:
        """A page asks for the reason first, and posts the action back with `apply`."""
        form = DisableForm(request.POST if "apply" in request.POST else None)
        chosen = list(queryset)
        if not form.is_valid():
            context = {
                **self.admin_site.each_context(request),
                "opts": self.model._meta,
                "title": "Disable players?" if len(chosen) > 1 else "Disable this player?",
                "form": form,
                "players": chosen,
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            }
            return TemplateResponse(
                request, "admin/players/player/disable_confirmation.html", context
            )
        by, reason = request.user.get_username(), form.cleaned_data["reason"]
        for player in chosen:
            services.player_disable(player_id=player.pk, by=by, reason=reason)
            self.log_change(request, player, f"Disabled: {reason}")
        count = len(chosen)
        self.message_user(
            request,
            f"{count} player{'' if count == 1 else 's'} disabled: their tokens are refused "
            "and their streams closed.",
            messages.SUCCESS,
        )
        return None

    @admin.action(description="Enable the selected players again", permissions=["change"])
    def enable_players(self, request: HttpRequest, queryset: QuerySet[Player]) -> None:
        by = request.user.get_username()
        chosen = list(queryset.filter(disabled_at__isnull=False))
        for player in chosen:
            services.player_enable(player_id=player.pk, by=by)
            self.log_change(request, player, "Enabled again")
        count = len(chosen)
        self.message_user(
            request, f"{count} player{'' if count == 1 else 's'} enabled again.", messages.SUCCESS
        )
