"""The staff pages beside a game's own: the replay viewer, which steps through any
game event by event, and the overview of play and of the service's health."""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Sequence
from typing import Any

from django.contrib import admin
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.safestring import SafeString, mark_safe

from games import charts, overview, replay, seat_history, selectors
from games.admin.words import (
    COLOR_CLASSES,
    card_html,
    cards_html,
    describe_event,
    seat_at,
    seat_label,
    seat_name,
)
from games.engine.cards import COLOR_NAMES
from games.models import Game, GameStatus, SeatingEntry
from unoservice import replica


def replay_page(
    model_admin: admin.ModelAdmin[Game], request: HttpRequest, game_id: uuid.UUID
) -> HttpResponse:
    """Step through a game: the whole table after the chosen event."""
    if not model_admin.has_view_permission(request):
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
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.model._meta,
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
        (event, describe_event(event, seatings[event.seq]), event.seq == seq) for event in nearby
    ]
    context["event"] = next(e for e, _, current in context["nearby"] if current)
    context["event_html"] = describe_event(context["event"], seatings[seq])
    seating = seat_history.seatings_at(game, [seq], after=True)[seq]
    context["table"] = _table_context(seating, shown)
    return TemplateResponse(request, "admin/games/game/replay.html", context)


def overview_page(model_admin: admin.ModelAdmin[Game], request: HttpRequest) -> HttpResponse:
    """The overview of play: figures, the service's health and three charts. The
    counts may lag a little: they are read from the read replica, if there is one."""
    figures, per_hour = replica.lagging(lambda: (overview.figures(), overview.moves_per_hour()))
    context = {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.model._meta,
        "title": "Overview of play",
        "figures": figures,
        "statuses": GameStatus.values,
        "checks": overview.service_health(),
        "charts": overview_charts(figures, per_hour),
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
        name = seat_name(seat_at(seating, number))
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
