"""Players in the staff dashboard: read only, but for the Django user a staff member's
player is linked to (which lets that player read complete logs through the API), and
for the operators' actions through `players.services`, each after a page that asks
why: disabling a player (and enabling them again), and hiding a player from the
leaderboard (and showing them again), recorded with the staff member."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse

from players import services, sessions
from players.accounts import services as account_services
from players.models import Identity, LeaderboardHiding, Player, PlayerSession
from unoservice.errors import ServiceError


class ReasonForm(forms.Form):
    reason = forms.CharField(
        max_length=services.MAX_REASON_LENGTH,
        help_text="Recorded with your username and the time.",
        widget=forms.TextInput(attrs={"size": 60, "autofocus": True}),
    )


@dataclass(frozen=True)
class ReasonQuestion:
    """What the page before an action on ratings asks."""

    action_name: str
    title: str
    explanation: str
    submit_label: str
    label: Callable[[Any], str]  # one chosen object, as the page lists it


def act_with_reason(
    model_admin: admin.ModelAdmin[Any],
    request: HttpRequest,
    queryset: QuerySet[Any],
    question: ReasonQuestion,
    act: Callable[[Any, str], None],
) -> HttpResponse | None:
    """Django's pattern for an action that needs a word first (as the games' abandon):
    the action renders a page asking for the reason, which posts the action back with
    `apply`; then `act(object, reason)` runs for each chosen object, and a service's
    refusal is reported, not raised."""
    form = ReasonForm(request.POST if "apply" in request.POST else None)
    chosen: Sequence[Model] = list(queryset)
    if not form.is_valid():
        opts = model_admin.model._meta
        context = {
            **model_admin.admin_site.each_context(request),
            "opts": opts,
            "title": question.title,
            "explanation": question.explanation,
            "submit_label": question.submit_label,
            "form": form,
            "action_name": question.action_name,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "rows": [{"pk": obj.pk, "label": question.label(obj)} for obj in chosen],
            "back_url": reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist"),
        }
        return TemplateResponse(request, "admin/players/confirm_with_reason.html", context)
    done, refused = 0, []
    for obj in chosen:
        try:
            act(obj, form.cleaned_data["reason"])
            done += 1
        except ServiceError as error:
            refused.append(f"{question.label(obj)}: {error.message}")
    model_admin.message_user(request, f"Done for {done} of {len(chosen)}.", messages.SUCCESS)
    if refused:
        model_admin.message_user(request, "Refused: " + "; ".join(refused), messages.WARNING)
    return None


class ReadOnlyAdmin:
    """For a model admin whose rows only the services write (a game, a rating): the
    admin shows them and never adds, changes or deletes one."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyInline(admin.TabularInline[Any, Player]):
    """Rows of a player's that only the services write, shown on the player's page:
    never added, changed or deleted there."""

    extra = 0
    can_delete = False

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return self.fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class LeaderboardHidingInline(ReadOnlyInline):
    """Who hid the player from the leaderboard or showed them again, when and why."""

    model = LeaderboardHiding
    fields = ("at", "hidden", "by_username", "reason")
    verbose_name = "leaderboard hiding"
    verbose_name_plural = "hidden from the leaderboard: history"


class PlayerSessionInline(ReadOnlyInline):
    """The devices the player is signed in on (their tokens are never shown: only
    hashes are kept). Ended with the action "Sign the selected players out of every
    device"."""

    model = PlayerSession
    fields = ("name", "created_at", "last_used_at", "network")
    verbose_name = "session"
    verbose_name_plural = "signed in on (sessions)"


class IdentityInline(ReadOnlyInline):
    """The email addresses and Google or Apple accounts the player signs in with.
    Unlinked with the action "Unlink every identity of the selected players"."""

    model = Identity
    fields = ("kind", "email", "subject", "created_at", "last_used_at")
    verbose_name = "identity"
    verbose_name_plural = "signs in with (linked identities)"


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin[Player]):
    list_display = (
        "name",
        "games_played",
        "games_won",
        "rounds_won",
        "points",
        "leaderboard_hidden",
        "user",
        "disabled_at",
        "deleted_at",
        "created_at",
    )
    search_fields = ("name", "user__username", "identities__subject")
    list_filter = (
        ("disabled_at", admin.EmptyFieldListFilter),
        ("deleted_at", admin.EmptyFieldListFilter),
        "leaderboard_hidden",
        "created_at",
    )
    actions = (
        "disable_players",
        "enable_players",
        "sign_out_everywhere",
        "unlink_identities",
        "hide_from_leaderboard",
        "show_on_leaderboard",
    )
    inlines = (IdentityInline, PlayerSessionInline, LeaderboardHidingInline)
    date_hierarchy = "created_at"
    fields = (
        "id",
        "name",
        "user",
        "games_played",
        "games_won",
        "rounds_won",
        "points",
        "leaderboard_hidden",
        "created_at",
        "disabled_at",
        "disabled_by",
        "disabled_reason",
        "deleted_at",
    )
    readonly_fields = (
        "id",
        "name",
        "games_played",
        "games_won",
        "rounds_won",
        "points",
        "leaderboard_hidden",
        "created_at",
        "disabled_at",
        "disabled_by",
        "disabled_reason",
        "deleted_at",
    )
    raw_id_fields = ("user",)

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
        question = ReasonQuestion(
            action_name="disable_players",
            title="Disable these players?",
            explanation="Every token of theirs is refused (401 player_disabled) and their "
            "open streams close, until they are enabled again. The reason stays with the "
            "player and your username; the player is told only that they are disabled.",
            submit_label="Disable",
            label=str,
        )
        by = request.user.get_username()

        def act(player: Player, reason: str) -> None:
            services.player_disable(player_id=player.pk, by=by, reason=reason)
            self.log_change(request, player, f"Disabled: {reason}")

        return act_with_reason(self, request, queryset, question, act)

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

    @admin.action(
        description="Sign the selected players out of every device", permissions=["change"]
    )
    def sign_out_everywhere(self, request: HttpRequest, queryset: QuerySet[Player]) -> None:
        ended = 0
        for player in queryset:
            count = sessions.sessions_end_all(player_id=player.pk)
            self.log_change(request, player, f"Signed out of {count} sessions")
            ended += count
        self.message_user(
            request, f"{ended} session{'' if ended == 1 else 's'} ended.", messages.SUCCESS
        )

    @admin.action(
        description="Unlink every identity of the selected players…", permissions=["change"]
    )
    def unlink_identities(
        self, request: HttpRequest, queryset: QuerySet[Player]
    ) -> HttpResponse | None:
        question = ReasonQuestion(
            action_name="unlink_identities",
            title="Unlink every identity of these players?",
            explanation="Their email addresses and Google or Apple accounts no longer sign "
            "in, and their passwords go (an address taken over, a dispute). The devices "
            "signed in stay signed in: sign them out too if need be.",
            submit_label="Unlink",
            label=str,
        )

        def act(player: Player, reason: str) -> None:
            count = account_services.identities_unlink_all(player_id=player.pk)
            self.log_change(request, player, f"Unlinked {count} identities: {reason}")

        return act_with_reason(self, request, queryset, question, act)

    @admin.action(
        description="Hide the selected players from the leaderboard…", permissions=["change"]
    )
    def hide_from_leaderboard(
        self, request: HttpRequest, queryset: QuerySet[Player]
    ) -> HttpResponse | None:
        return self._set_hidden(request, queryset, hidden=True)

    @admin.action(
        description="Show the selected players on the leaderboard again…", permissions=["change"]
    )
    def show_on_leaderboard(
        self, request: HttpRequest, queryset: QuerySet[Player]
    ) -> HttpResponse | None:
        return self._set_hidden(request, queryset, hidden=False)

    def _set_hidden(
        self, request: HttpRequest, queryset: QuerySet[Player], *, hidden: bool
    ) -> HttpResponse | None:
        if hidden:
            question = ReasonQuestion(
                action_name="hide_from_leaderboard",
                title="Hide from the leaderboard?",
                explanation="These players leave the leaderboard (the API's and this "
                "dashboard's) until shown again. Their ratings still move with their games.",
                submit_label="Hide",
                label=str,
            )
        else:
            question = ReasonQuestion(
                action_name="show_on_leaderboard",
                title="Show on the leaderboard again?",
                explanation="These players are listed again once they have the record.",
                submit_label="Show",
                label=str,
            )

        def act(player: Player, reason: str) -> None:
            services.leaderboard_hide(
                player_id=player.pk, hidden=hidden, by=request.user, reason=reason
            )

        return act_with_reason(self, request, queryset, question, act)
