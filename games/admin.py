"""The staff dashboard: games with their seats and log, a replay viewer that steps
through any game event by event, and an overview of play and of the service's health.

Nothing here changes a game except through `games.services` (the abandon action,
after a page that asks for a reason); the pages only read. A waiting or running
game's page follows the game live: it listens to the game's stream
(`/api/v1/games/{id}/stream`, opened with the staff member's session) and redraws
its fields, seats and log as changes come in.

Seats are named as people say them ("alice", "bot (expert)"), never as the stored
dicts, and the house rules as words.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterable, Sequence
from typing import Any, cast

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse, reverse_lazy
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

import games.rating_admin  # also registers the leaderboard and the players' ratings
from games import charts, overview, replay, seat_history, selectors, services
from games.engine.cards import CODE_OF, COLOR_BY_NAME, COLOR_NAMES, COLOR_OF
from games.engine.vocabulary import Means, data_keys, is_event_type, means
from games.game_words import rated_in_words, status_in_words
from games.models import OPEN_STATUSES, Event, Game, GameStatus, Seat, SeatingEntry
from unoservice.errors import ServiceError

# The site is the service's, not Django's; "View site" leads to what the service
# offers the world: its API and the reference of it.
admin.site.site_header = "UNO service administration"
admin.site.site_title = "UNO service admin"
admin.site.index_title = "Games, players and the service"
# Lazy: the URLconf is still being read when the admin is.
admin.site.site_url = cast(str, reverse_lazy("docs"))
# The home page adds the operator's pages (the overview, the leaderboard) above the
# apps' models: a template of its own name, so no app order is needed to override it.
admin.site.index_template = "admin/games/index.html"

LOG_PAGE_SIZE = 50
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


def seat_name(entry: SeatingEntry | None) -> str:
    """A seat of `Game.seating` as people name it: the player's name, "bot (expert)",
    or "bot (greedy) for alice" when a bot holds a timed-out player's seat."""
    if not entry:
        return "—"
    name = entry["player"]["name"] if entry["player"] else None
    if entry["bot"] is not None:
        bot = f"bot ({entry['bot']})"
        return f"{bot} for {name}" if name else bot
    return name or "—"


def seat_label(seating: Sequence[SeatingEntry], number: object) -> str:
    """A seat number with its name: "seat 1 (bot (expert))"."""
    entry = _at(seating, number)
    return f"seat {number}" if entry is None else f"seat {number} ({seat_name(entry)})"


# Every house rule of `Rules`, as the rules (docs/rules.md) call it.
RULE_NAMES: dict[str, str] = {
    "stacking": "Stacking of Draw Twos and Wild Draw Fours",
    "seven_o": "Seven-O (a 7 swaps hands, a 0 passes them on)",
    "jump_in": "Jump-in",
    "draw_until_playable": "Draw until playable",
    "force_play": "Force play (a playable drawn card must be played)",
}
OFFICIAL_RULES = "Official rules"


def rules_in_words(rules: dict[str, Any] | None) -> str:
    """The house rules that are on, as words, in the order the rules give them (the
    stored JSON's key order is the database's: PostgreSQL sorts a jsonb's keys);
    "Official rules" with none."""
    rules = rules or {}
    known = [RULE_NAMES[name] for name in RULE_NAMES if rules.get(name)]
    unknown = [name for name, value in rules.items() if value and name not in RULE_NAMES]
    on = known + unknown
    return ", ".join(on) if on else OFFICIAL_RULES


def abandoned_in_words(data: dict[str, Any]) -> str:
    """A `game_abandoned` event's data as operators read it."""
    by = data.get("by")
    reason = data.get("reason", "")
    return f"abandoned by {by}: {reason}" if by else f"abandoned: {reason}"


def _plain_html(value: Any, seating: Sequence[SeatingEntry]) -> str:
    """Any other value of `data`, without the braces of a stored dict."""
    if isinstance(value, dict):
        if "name" in value:  # a player reference
            return format_html("{}", value["name"])
        return format_html_join(
            " ", "{}={}", ((k, _plain_html(v, seating)) for k, v in value.items())
        )
    if isinstance(value, list):
        return format_html_join(", ", "{}", ((_plain_html(v, seating),) for v in value))
    return format_html("{}", value)


def _ratings_html(value: list[Any], seating: Sequence[SeatingEntry]) -> str:
    def one(entry: dict[str, Any]) -> tuple[str, str, str]:
        rating = entry.get("rating", {}).get("ordinal", 0.0)
        change = entry.get("change", {}).get("ordinal", 0.0)
        return seat_name(_at(seating, entry.get("seat"))), f"{rating:.2f}", f"{change:+.2f}"

    return format_html_join(", ", "{} {} ({})", (one(e) for e in value if isinstance(e, dict)))


def _at(seating: Sequence[SeatingEntry], number: object) -> SeatingEntry | None:
    return seating[number] if isinstance(number, int) and 0 <= number < len(seating) else None


def describe_event(event: Event, seating: Sequence[SeatingEntry] = ()) -> str:
    """A readable line for the log and the viewer: cards in their colours, seats by
    their names (from the game's `seating`), players by name, no stored dicts."""
    data = event.data
    seat_keys = (
        {key.name for key in data_keys(event.type) if means(key.type) is Means.SEAT}
        if is_event_type(event.type)
        else set()
    )
    parts: list[str] = []
    if event.type == "game_abandoned":
        parts.append(format_html("{}", abandoned_in_words(data)))
        data = {}
    for key, value in data.items():
        if key in ("card", "top_card") and isinstance(value, int):
            parts.append(format_html("{}: {}", key, card_html(value)))
        elif key in ("cards", "hand") and isinstance(value, list):
            parts.append(format_html("{}: {}", key, cards_html(value)))
        elif key == "hands" and isinstance(value, list):
            hands = format_html_join(
                " ",
                "{}: {}",
                ((seat_name(_at(seating, s)), cards_html(h)) for s, h in enumerate(value)),
            )
            parts.append(format_html("hands {}", hands))
        elif key == "scores" and isinstance(value, list):
            scores = format_html_join(
                ", ", "{} {}", ((seat_name(_at(seating, s)), n) for s, n in enumerate(value))
            )
            parts.append(format_html("scores: {}", scores))
        elif key == "ratings" and isinstance(value, list):
            parts.append(format_html("ratings: {}", _ratings_html(value, seating)))
        elif key in seat_keys:
            parts.append(format_html("{}: {}", key, seat_label(seating, value)))
        elif key == "color" and isinstance(value, str) and value in COLOR_BY_NAME:
            parts.append(
                format_html(
                    'color: <span class="uno-dot {}">{}</span>', COLOR_CLASSES[value], value
                )
            )
        else:
            parts.append(format_html("{}: {}", key, _plain_html(value, seating)))
    who = "" if event.seat is None else f"{seat_label(seating, event.seat)} "
    body = format_html_join(", ", "{}", ((p,) for p in parts))
    return format_html("<strong>{}</strong> {}{}", event.type, who, body)


def duration_in_words(span: dt.timedelta) -> str:
    """A span as an operator reads it at a glance: "45 s", "12 min", "3 h 05 min",
    "2 d 4 h"."""
    seconds = max(int(span.total_seconds()), 0)
    if seconds < 60:
        return f"{seconds} s"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes} min"
    hours = minutes // 60
    if hours < 24:
        return f"{hours} h {minutes % 60:02d} min"
    return f"{hours // 24} d {hours % 24} h"


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
        return super().get_queryset(request).select_related("player")

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
class GameAdmin(admin.ModelAdmin[Game]):
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
    actions = ("abandon_games", "verify_replays", games.rating_admin.annul_ratings)
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
        "seed",
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

    @admin.display(description="status", ordering="status")
    def status_shown(self, game: Game) -> str:
        return status_in_words(game)

    @admin.display(description="rated")
    def rated_shown(self, game: Game) -> str:
        return rated_in_words(game)

    @admin.display(description="players and bots")
    def players_and_bots(self, game: Game) -> str:
        return ", ".join(seat_name(entry) for entry in game.seating) or "—"

    @admin.display(description="winner", ordering="winner")
    def winner_name(self, game: Game) -> str:
        return seat_name(_at(game.seating, game.winner))

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
        return games.rating_admin.rating_outcome(game)

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
        """Step through a game: the whole table after the chosen event."""
        if not self.has_view_permission(request):
            raise Http404
        game = selectors.game_or_none(game_id)
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
        nearby = list(selectors.events_around(game, seq, reach=6))
        seatings = seat_history.seatings_at(game, [event.seq for event in nearby])
        context["nearby"] = [
            (event, describe_event(event, seatings[event.seq]), event.seq == seq)
            for event in nearby
        ]
        context["event"] = next(e for e, _, current in context["nearby"] if current)
        context["event_html"] = describe_event(context["event"], seatings[seq])
        seating = seat_history.seatings_at(game, [seq], after=True)[seq]
        context["table"] = _table_context(seating, shown)
        return TemplateResponse(request, "admin/games/game/replay.html", context)

    def overview_view(self, request: HttpRequest) -> HttpResponse:
        figures = overview.figures()
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Overview of play",
            "figures": figures,
            "statuses": GameStatus.values,
            "checks": overview.service_health(),
            "charts": overview_charts(figures, overview.moves_per_hour()),
        }
        return TemplateResponse(request, "admin/games/game/overview.html", context)


def overview_charts(
    figures: dict[str, Any], per_hour: list[tuple[dt.datetime, int]]
) -> list[dict[str, Any]]:
    """The overview's charts: each its SVG, and its numbers as rows (what, how many)
    for the table under it."""

    def counted(what: str, n: int) -> str:
        return f"{n} {what}{'' if n == 1 else 's'}"

    per_day = [
        (
            f"{day:%a %d %b}",
            charts.Bar(f"{day:%d}", n, str(n), f"{day:%a %d %b}: {counted('game', n)}"),
        )
        for day, n in figures["per_day"]
    ]
    # Every third hour labelled under its bar: 24 labels would run into each other.
    hourly = [
        (
            f"{hour:%a %H}:00",
            charts.Bar(
                f"{hour:%H}h" if number % 3 == 0 else "",
                n,
                str(n),
                f"{hour:%a %H}:00: {counted('move', n)}",
            ),
        )
        for number, (hour, n) in enumerate(per_hour)
    ]
    rates = [
        (
            f"{name} ({rate.wins} of {rate.seats} seats)",
            charts.Bar(
                name,
                rate.percent or 0.0,
                "—" if rate.percent is None else f"{rate.percent:g}%",
                f"{name}: {rate.wins} of {rate.seats} seats won",
            ),
        )
        for name, rate in (("bots", figures["bots"]), ("humans", figures["humans"]))
    ]
    made: list[tuple[str, str, str, str, list[tuple[str, charts.Bar]], float | None]] = [
        (
            "games-per-day",
            "Games finished per day, the last 14 days",
            "day",
            "games",
            per_day,
            None,
        ),
        ("moves-per-hour", "Moves per hour, the last 24 hours", "hour", "moves", hourly, None),
        ("win-rates", "Seats won, bots against humans", "seats", "% won", rates, 100.0),
    ]
    return [
        {
            "id": css_id,
            "title": title,
            "svg": _chart_svg(
                [bar for _, bar in rows], title=title, x_label=x_label, y_label=y_label, maximum=top
            ),
            "rows": [(label, bar.shown) for label, bar in rows],
        }
        for css_id, title, x_label, y_label, rows, top in made
    ]


def _chart_svg(bars: list[charts.Bar], **labels: Any) -> SafeString:
    # charts.bar_chart escapes every text it writes.
    return mark_safe(charts.bar_chart(bars, **labels))


def _table_context(seating: Sequence[SeatingEntry], shown: replay.Table) -> dict[str, Any] | None:
    """The table after the chosen event, its seats named as they were held then."""
    state = shown.state
    if state is None:
        return None
    to_act = state.to_act
    seats = []
    for number, hand in enumerate(state.hands):
        name = seat_name(_at(seating, number))
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
        "winner_label": seat_label(seating, state.winner) if state.winner >= 0 else None,
        "to_act_label": None if to_act is None else seat_label(seating, to_act),
    }
