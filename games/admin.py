"""The staff dashboard: games with their seats and log, a replay viewer that steps
through any game event by event, and an overview of play.

Nothing here changes a game except through `games.services` (the abandon action);
the pages only read. A waiting or running game's page follows the game live: it
listens to the game's stream (`/api/v1/games/{id}/stream`, opened with the staff
member's session) and redraws its fields, seats and log as changes come in.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib import admin, messages
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join

import games.rating_admin  # noqa: F401  (registers the leaderboard and players' ratings)
from games import overview, replay, selectors, services
from games.engine.cards import CODE_OF, COLOR_BY_NAME, COLOR_NAMES, COLOR_OF
from games.models import Event, Game, GameStatus, Seat
from unoservice.errors import ServiceError

LOG_PAGE_SIZE = 50
LIVE_STATUSES = (GameStatus.WAITING, GameStatus.PLAYING)
COLOR_CLASSES: dict[str, str] = {color: f"uno-{color}" for color in COLOR_NAMES}


def card_html(card: int) -> str:
    """One card, drawn in its colour (wilds in black)."""
    color = COLOR_OF[card]
    css = COLOR_CLASSES[COLOR_NAMES[color]] if color >= 0 else "uno-wild"
    return format_html(
        '<span class="uno-card {}" title="card {}">{}</span>', css, card, CODE_OF[card]
    )


def cards_html(cards: list[int]) -> str:
    return format_html_join("", "{}", ((card_html(c),) for c in cards)) or "—"


def describe_event(event: Event) -> str:
    """A readable line for the log and the viewer, cards in their colours."""
    data = event.data
    parts: list[str] = []
    for key, value in data.items():
        if key in ("card", "top_card") and isinstance(value, int):
            parts.append(format_html("{}: {}", key, card_html(value)))
        elif key in ("cards", "hand") and isinstance(value, list):
            parts.append(format_html("{}: {}", key, cards_html(value)))
        elif key == "hands" and isinstance(value, list):
            hands = format_html_join(
                " ", "{}: {}", ((s, cards_html(h)) for s, h in enumerate(value))
            )
            parts.append(format_html("hands {}", hands))
        elif key == "color" and isinstance(value, str) and value in COLOR_BY_NAME:
            parts.append(
                format_html(
                    'color: <span class="uno-dot {}">{}</span>', COLOR_CLASSES[value], value
                )
            )
        else:
            parts.append(format_html("{}: {}", key, value))
    who = "" if event.seat is None else f"seat {event.seat} "
    body = format_html_join(", ", "{}", ((p,) for p in parts))
    return format_html("<strong>{}</strong> {}{}", event.type, who, body)


class SeatInline(admin.TabularInline[Seat, Game]):
    model = Seat
    fields = ("seat", "player", "bot", "joined_at")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False

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
        if self.value() == "bots":
            return queryset.filter(seats__bot__isnull=False).distinct()
        if self.value() == "humans":
            return queryset.exclude(seats__bot__isnull=False)
        return queryset


@admin.register(Game)
class GameAdmin(admin.ModelAdmin[Game]):
    list_display = (
        "short_id",
        "status",
        "visibility",
        "players_and_bots",
        "round",
        "version",
        "moves",
        "created_at",
        "updated_at",
        "replay_link",
    )
    list_filter = ("status", "visibility", HasBotsFilter, "created_at")
    date_hierarchy = "created_at"
    search_fields = ("host__name", "seats__player__name")
    search_help_text = "a player's name, or a game id"
    list_select_related = ("host",)
    list_per_page = 50
    inlines = (SeatInline,)
    actions = ("abandon_games", "verify_replays")
    change_form_template = "admin/games/game/change_form.html"
    change_list_template = "admin/games/game/change_list.html"
    fields = (
        "id",
        "status",
        "host",
        "max_players",
        "target_score",
        "turn_timeout",
        "rules",
        # Staff see a private game's invite code, to help its players.
        "visibility",
        "invite_code",
        "rated",
        "seed",
        "version",
        "moves",
        "last_seq",
        "winner",
        "rematch",
        "presence",
        "turn_deadline",
        "bot_due_at",
        "created_at",
        "started_at",
        "finished_at",
        "updated_at",
    )
    readonly_fields = fields

    # -- read only: every change goes through the services -----------------------

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_abandon_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("games.change_game")

    # -- columns ---------------------------------------------------------------------

    @admin.display(description="game", ordering="id")
    def short_id(self, game: Game) -> str:
        return str(game.pk)[:8]

    @admin.display(description="players and bots")
    def players_and_bots(self, game: Game) -> str:
        names = []
        for entry in game.seating:
            if entry["bot"] is not None:
                names.append(f"{entry['bot']} bot")
            elif entry["player"]:
                names.append(entry["player"]["name"])
        return ", ".join(names) or "—"

    @admin.display(description="presence")
    def presence(self, game: Game) -> str:
        """Who is at the table now, as the players' views show it (`online`), and how
        many spectators' streams are open."""
        if game.status not in (GameStatus.WAITING, GameStatus.PLAYING):
            return "—"
        present = selectors.presence_of(game)
        humans = [e["player"] for e in game.seating if e["bot"] is None and e["player"]]
        marks = [
            f"{p['name']} {'online' if p['id'] in present.online else 'offline'}" for p in humans
        ]
        spectators = f"{present.spectators} spectator" + ("" if present.spectators == 1 else "s")
        return "; ".join([*marks, spectators])

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
        return queryset.filter(pk=game_id), False

    # -- actions (through the services) ---------------------------------------------

    # Abandoning changes a game, so it needs the change permission even though the
    # admin's own change form stays off (has_change_permission is False for everyone).
    @admin.action(description="Abandon the selected games", permissions=["abandon"])
    def abandon_games(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        done = 0
        for game_id in queryset.values_list("pk", flat=True):
            try:
                services.game_abandon(game_id=game_id, reason=f"abandoned by {request.user}")
                done += 1
            except ServiceError as error:
                self.message_user(request, f"{game_id}: {error.message}", messages.WARNING)
        self.message_user(request, f"{done} game(s) abandoned.", messages.SUCCESS)

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
        try:
            game = Game.objects.get(pk=uuid.UUID(object_id))
        except (ValueError, Game.DoesNotExist):
            return super().change_view(request, object_id, form_url, context)
        pages = Paginator(selectors.event_log(game), LOG_PAGE_SIZE)
        requested = request.GET.get("log_page")
        # "last" lets the live page follow the log onto a page that did not exist yet.
        page = pages.get_page(pages.num_pages if requested == "last" else requested)
        context["log_page"] = page
        context["log_rows"] = [(event, describe_event(event)) for event in page]
        context["replay_url"] = (
            reverse("admin:games_game_replay", args=[game.pk]) if game.started_at else None
        )
        # A game still changing is followed live; the stream accepts the staff session.
        context["live_stream_url"] = (
            reverse("game-stream", args=[game.pk]) if game.status in LIVE_STATUSES else None
        )
        return super().change_view(request, object_id, form_url, context)

    def replay_view(self, request: HttpRequest, game_id: uuid.UUID) -> HttpResponse:
        """Step through a game: the whole table after the chosen event."""
        if not self.has_view_permission(request):
            raise Http404
        game = Game.objects.filter(pk=game_id).first()
        if game is None or game.last_seq == 0:
            raise Http404("no such game")
        try:
            seq = int(request.GET.get("seq", "1"))
        except ValueError:
            seq = 1
        seq = min(max(seq, 1), game.last_seq)
        context: dict[str, Any] = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": f"Replay of game {str(game.pk)[:8]}",
            "game": game,
            "seq": seq,
            "last_seq": game.last_seq,
            "steps": {"first": 1, "previous": max(seq - 1, 1), "next": min(seq + 1, game.last_seq)},
        }
        try:
            shown = replay.table_after(game, seq)
        except replay.ReplayMismatch as error:
            context["mismatch"] = error
            return TemplateResponse(request, "admin/games/game/replay.html", context)
        context["nearby"] = [
            (event, describe_event(event), event.seq == seq)
            for event in selectors.events_around(game, seq, reach=6)
        ]
        context["event"] = next(e for e, _, current in context["nearby"] if current)
        context["event_html"] = describe_event(context["event"])
        context["table"] = _table_context(game, shown)
        return TemplateResponse(request, "admin/games/game/replay.html", context)

    def overview_view(self, request: HttpRequest) -> HttpResponse:
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Overview of play",
            "figures": overview.figures(),
            "statuses": GameStatus.values,
        }
        return TemplateResponse(request, "admin/games/game/overview.html", context)


def _table_context(game: Game, shown: replay.Table) -> dict[str, Any] | None:
    state = shown.state
    if state is None:
        return None
    to_act = state.to_act
    seats = []
    for number, hand in enumerate(state.hands):
        entry = (
            game.seating[number] if number < len(game.seating) else {"player": None, "bot": None}
        )
        name = f"{entry['bot']} bot" if entry["bot"] else (entry["player"] or {}).get("name", "—")
        seats.append(
            {
                "seat": number,
                "name": name,
                "hand": cards_html(hand),
                "count": len(hand),
                "score": state.scores[number],
                "said_uno": state.said_uno[number],
                "to_act": number == to_act,
            }
        )
    color = COLOR_NAMES[state.color] if state.color >= 0 else None
    return {
        "round": state.round,
        "seats": seats,
        "top": card_html(state.discard[-1]) if state.discard else "—",
        "color": color,
        "color_class": COLOR_CLASSES.get(color or "", ""),
        "direction": "clockwise" if state.direction == 1 else "counterclockwise",
        "to_act": to_act,
        "pending": state.pending.type if state.pending is not None else None,
        "draw_pile": len(state.draw_pile),
        "discard_pile": len(state.discard),
        "winner": state.winner if state.winner >= 0 else None,
    }
