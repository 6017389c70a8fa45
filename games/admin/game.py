"""The games in the staff dashboard: the list, a game's page with its seats and a
page of its log (followed live while the game runs), and the two actions, abandoning
(through `services.game_abandon`, after a page that asks why) and verifying replays.
The replay viewer and the overview are `games.admin.pages`'."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html

import games.ratings.admin  # also registers the leaderboard and the players' ratings
from games import deals, replay, seat_history, selectors, services
from games.admin import pages
from games.admin.words import (
    abandoned_in_words,
    describe_event,
    duration_in_words,
    rules_in_words,
    seat_at,
    seat_name,
)
from games.game_words import rated_in_words, status_in_words
from games.models import OPEN_STATUSES, Game, GameStatus, Seat
from players.admin import ReadOnlyAdmin
from unoservice.errors import ServiceError

LOG_PAGE_SIZE = 50


class AbandonForm(forms.Form):
    reason = forms.CharField(
        max_length=200,
        help_text="Recorded in each game's log with your username; players read the "
        "reason, not who you are.",
        widget=forms.TextInput(attrs={"size": 60, "autofocus": True}),
    )


class SeatInline(admin.TabularInline[Seat, Game]):
    model = Seat
    fields = ("seat", "who", "timed_out", "joined_at")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False

    def get_queryset(self, request: HttpRequest) -> QuerySet[Seat]:
        return selectors.with_players(super().get_queryset(request))

    @admin.display(description="who")
    def who(self, seat: Seat) -> str:
        return seat_name(seat.seating_entry())

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class HasBotsFilter(admin.SimpleListFilter):
    title = "seats"
    parameter_name = "seats"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("bots", "with bots"), ("humans", "humans only")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Game]) -> QuerySet[Game]:
        if self.value() in ("bots", "humans"):
            return selectors.games_with_bots(queryset, bots=self.value() == "bots")
        return queryset


@admin.register(Game)
class GameAdmin(ReadOnlyAdmin, admin.ModelAdmin[Game]):
    # Every column is read from the game's own row (its seating is stored on it), so
    # a page of the list costs the same few queries however many games it shows.
    list_display = (
        "short_id",
        "status_shown",
        "visibility",
        "players_and_bots",
        "winner_name",
        "round",
        "moves",
        "version",
        "created",
        "duration",
        "idle_for",
        "replay_link",
    )
    list_filter = ("status", "visibility", HasBotsFilter, "created_at")
    date_hierarchy = "created_at"
    search_fields = ("host__name", "seats__player__name")
    search_help_text = "a player's name, or a game id"
    list_per_page = 50
    inlines = (SeatInline,)
    actions = ("abandon_games", "verify_replays", games.ratings.admin.annul_ratings)
    change_form_template = "admin/games/game/change_form.html"
    change_list_template = "admin/games/game/change_list.html"
    fields = (
        "id",
        "status_shown",
        "how_it_ended",
        "host",
        "max_players",
        "target_score",
        "turn_timeout",
        "rules_in_words",
        # Staff see a private game's invite code, to help its players.
        "visibility",
        "invite_code",
        "rated_shown",
        "rating_outcome",
        "deal",
        "version",
        "moves",
        "last_seq",
        "winner_name",
        "rematch",
        "presence",
        "turn_deadline",
        "bot_due_at",
        "created_at",
        "started_at",
        "finished_at",
        "duration",
        "updated_at",
    )
    readonly_fields = fields

    # Read only (`ReadOnlyAdmin`): every change goes through the services.

    def has_abandon_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("games.change_game")

    # -- columns ---------------------------------------------------------------------

    @admin.display(description="game", ordering="id")
    def short_id(self, game: Game) -> str:
        return str(game.pk)[:8]

    @admin.display(description="status", ordering="status")
    def status_shown(self, game: Game) -> str:
        return status_in_words(game)

    @admin.display(description="rated")
    def rated_shown(self, game: Game) -> str:
        return rated_in_words(game)

    @admin.display(description="deal")
    def deal(self, game: Game) -> str:
        """The algorithm and the commitment; the seed once the game is over. Staff read
        no running game's seed: nobody does (docs/fairness.md)."""
        shown = f"{deals.algorithm(game)}, commitment {deals.commitment(game)}"
        if game.is_over:
            shown += f"; seed {deals.deal_seed(game)}"
        return shown

    @admin.display(description="players and bots")
    def players_and_bots(self, game: Game) -> str:
        return ", ".join(seat_name(entry) for entry in game.seating) or "—"

    @admin.display(description="winner", ordering="winner")
    def winner_name(self, game: Game) -> str:
        return seat_name(seat_at(game.seating, game.winner))

    @admin.display(description="rules")
    def rules_in_words(self, game: Game) -> str:
        return rules_in_words(game.rules)

    @admin.display(description="created", ordering="created_at")
    def created(self, game: Game) -> str:
        return timezone.localtime(game.created_at).strftime("%Y-%m-%d %H:%M")

    @admin.display(description="duration")
    def duration(self, game: Game) -> str:
        """From the start to the end, or to now for a game still running."""
        if game.started_at is None:
            return "—"
        return duration_in_words((game.finished_at or timezone.now()) - game.started_at)

    @admin.display(description="idle for", ordering="updated_at")
    def idle_for(self, game: Game) -> str:
        """Since the last change of a waiting or running game: a long one means a
        table nobody moves at (a stuck timer, a lobby left open)."""
        if game.status not in OPEN_STATUSES:
            return "—"
        return duration_in_words(timezone.now() - game.updated_at)

    @admin.display(description="how it ended")
    def how_it_ended(self, game: Game) -> str:
        if game.status == GameStatus.FINISHED:
            return f"won by {self.winner_name(game)}"
        if game.status != GameStatus.ABANDONED:
            return "—"
        ended = selectors.abandonment(game)
        return "abandoned" if ended is None else abandoned_in_words(ended.data)

    @admin.display(description="presence")
    def presence(self, game: Game) -> str:
        """Who is at the table now, as the players' views show it (`online`), and how
        many spectators' streams are open."""
        if game.status not in OPEN_STATUSES:
            return "—"
        present = selectors.presence_of(game)
        humans = [e["player"] for e in game.seating if e["bot"] is None and e["player"]]
        marks = [
            f"{p['name']} {'online' if p['id'] in present.online else 'offline'}" for p in humans
        ]
        spectators = f"{present.spectators} spectator" + ("" if present.spectators == 1 else "s")
        return "; ".join([*marks, spectators])

    @admin.display(description="rating")
    def rating_outcome(self, game: Game) -> str:
        return games.ratings.admin.rating_outcome(game)

    @admin.display(description="round")
    def round(self, game: Game) -> int | None:
        return game.state["round"] if game.state else None

    @admin.display(description="replay")
    def replay_link(self, game: Game) -> str:
        if game.started_at is None:
            return "—"
        url = reverse("admin:games_game_replay", args=[game.pk])
        return format_html('<a href="{}">replay</a>', url)

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Game], search_term: str
    ) -> tuple[QuerySet[Game], bool]:
        try:
            game_id = uuid.UUID(search_term.strip())
        except ValueError:
            return super().get_search_results(request, queryset, search_term)
        return selectors.games_with_id(queryset, game_id), False

    # -- actions (through the services) ---------------------------------------------

    # Abandoning changes a game, so it needs the change permission even though the
    # admin's own change form stays off (has_change_permission is False for everyone).
    @admin.action(description="Abandon the selected games…", permissions=["abandon"])
    def abandon_games(self, request: HttpRequest, queryset: QuerySet[Game]) -> HttpResponse | None:
        """Django's pattern for an action that needs a word first: the action renders
        a page asking for the reason, which posts the action back with `apply`."""
        form = AbandonForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            ids = selectors.ids_of(queryset)
            self._abandon(request, ids, form.cleaned_data["reason"])
            return None  # back to the list, with the message
        return self._abandon_page(request, list(queryset), form, from_list=True)

    def abandon_view(self, request: HttpRequest, game_id: uuid.UUID) -> HttpResponse:
        """The same question for one game, from the button on its page."""
        if not self.has_abandon_permission(request):
            raise PermissionDenied
        game = selectors.game_or_none(game_id)
        if game is None:
            raise Http404("no such game")
        form = AbandonForm(request.POST if request.method == "POST" else None)
        if form.is_valid():
            self._abandon(request, [game.pk], form.cleaned_data["reason"])
            return HttpResponseRedirect(reverse("admin:games_game_change", args=[game.pk]))
        return self._abandon_page(request, [game], form, from_list=False)

    def _abandon_page(
        self, request: HttpRequest, chosen: list[Game], form: AbandonForm, *, from_list: bool
    ) -> HttpResponse:
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Abandon games?" if len(chosen) > 1 else "Abandon this game?",
            "form": form,
            "from_list": from_list,
            "action_name": "abandon_games",
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "rows": [
                {
                    "game": game,
                    "short_id": str(game.pk)[:8],
                    "players": self.players_and_bots(game),
                    "open": game.status in OPEN_STATUSES,
                }
                for game in chosen
            ],
            "open_count": sum(game.status in OPEN_STATUSES for game in chosen),
            "back_url": (
                reverse("admin:games_game_changelist")
                if from_list or not chosen
                else reverse("admin:games_game_change", args=[chosen[0].pk])
            ),
        }
        return TemplateResponse(request, "admin/games/game/abandon_confirmation.html", context)

    def _abandon(self, request: HttpRequest, game_ids: Iterable[Any], reason: str) -> None:
        """Abandon each game through the service, as the staff member at the admin, and
        say how many were abandoned and which could not be."""
        by = request.user.get_username()
        done = 0
        refused: list[str] = []
        for game_id in game_ids:
            try:
                services.game_abandon(game_id=game_id, reason=reason, by=by)
                done += 1
            except ServiceError as error:
                refused.append(f"{str(game_id)[:8]} ({error.message})")
        self.message_user(
            request,
            f"{done} game{'' if done == 1 else 's'} abandoned.",
            messages.SUCCESS if done else messages.INFO,
        )
        if refused:
            self.message_user(
                request,
                f"Not abandoned, being over already: {', '.join(refused)}.",
                messages.WARNING,
            )

    @admin.action(description="Verify the replay of the selected games", permissions=["view"])
    def verify_replays(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        verified = 0
        for game in queryset:
            try:
                replay.verify(game)
                verified += 1
            except replay.ReplayMismatch as error:
                self.message_user(
                    request,
                    f"{game.pk}: differs at seq {error.seq}: {error.reason}",
                    messages.ERROR,
                )
        self.message_user(request, f"{verified} game(s) replay exactly.", messages.SUCCESS)

    # -- pages ---------------------------------------------------------------------------

    def get_urls(self) -> list[URLPattern]:
        own = [
            path(
                "<uuid:game_id>/replay/",
                self.admin_site.admin_view(self.replay_view),
                name="games_game_replay",
            ),
            path(
                "<uuid:game_id>/abandon/",
                self.admin_site.admin_view(self.abandon_view),
                name="games_game_abandon",
            ),
            path(
                "overview/",
                self.admin_site.admin_view(self.overview_view),
                name="games_game_overview",
            ),
        ]
        return own + super().get_urls()

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        """The game with its event log, a page of `LOG_PAGE_SIZE` events at a time."""
        context = dict(extra_context or {})
        game = selectors.game_or_none(object_id)
        if game is None:
            return super().change_view(request, object_id, form_url, context)
        pages = Paginator(selectors.event_log(game), LOG_PAGE_SIZE)
        requested = request.GET.get("log_page")
        # "last" lets the live page follow the log onto a page that did not exist yet.
        page = pages.get_page(pages.num_pages if requested == "last" else requested)
        context["log_page"] = page
        # Each event names the seats as they were held then, not as they are now.
        seatings = seat_history.seatings_at(game, [event.seq for event in page])
        context["log_rows"] = [
            (event, describe_event(event, seatings[event.seq])) for event in page
        ]
        context["abandon_url"] = (
            reverse("admin:games_game_abandon", args=[game.pk])
            if game.status in OPEN_STATUSES and self.has_abandon_permission(request)
            else None
        )
        context["replay_url"] = (
            reverse("admin:games_game_replay", args=[game.pk]) if game.started_at else None
        )
        # A game still changing is followed live; the stream accepts the staff session.
        context["live_stream_url"] = (
            reverse("game-stream", args=[game.pk]) if game.status in OPEN_STATUSES else None
        )
        return super().change_view(request, object_id, form_url, context)

    def replay_view(self, request: HttpRequest, game_id: uuid.UUID) -> HttpResponse:
        return pages.replay_page(self, request, game_id)

    def overview_view(self, request: HttpRequest) -> HttpResponse:
        return pages.overview_page(self, request)
