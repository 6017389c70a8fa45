"""Small plots drawn on the server as inline SVG, for the staff dashboard: no script
and nothing fetched from elsewhere, so a page shows them as it loads.

Pure functions of their arguments. Every piece of text that goes into the SVG, a
player's name above all, is escaped here, so the caller may mark the result safe.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from html import escape

WIDTH, HEIGHT = 640, 200
# Room for the value labels on the left and the dates below.
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 14, 30

NO_GAMES = "no rated games yet"

# The admin's own colours, so that the plot follows its light and dark themes.
LINE = "stroke: var(--secondary, #417690)"
AXIS = "stroke: var(--hairline-color, #ccc)"
TEXT = "fill: var(--body-quiet-color, #666)"
GUIDE = "stroke: var(--border-color, #ccc); stroke-dasharray: 4 4"


def _attr(value: object) -> str:
    return escape(str(value), quote=True)


def _number(value: float) -> str:
    return f"{value:.2f}"


def _date(at: dt.datetime) -> str:
    return at.strftime("%Y-%m-%d")


def _attr_class(css: str) -> str:
    return f' class="{_attr(css)}"' if css else ""


def _text(x: float, y: float, body: str, *, anchor: str = "start", css: str = "") -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="11" '
        f'style="{_attr(TEXT)}"{_attr_class(css)}>{escape(body)}</text>'
    )


def _frame(label: str, body: list[str]) -> str:
    # role and aria-label let a screen reader announce the plot by what it shows.
    return "".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" class="rating-plot" role="img" '
            f'width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" '
            f'aria-label="{_attr(label)}">',
            f"<title>{escape(label)}</title>",
            *body,
            "</svg>",
        ]
    )


def rating_plot(points: Sequence[tuple[dt.datetime, float]], *, label: str) -> str:
    """An SVG of a rating over time: `points` are (when, value), oldest first, as
    `games.ratings.reads.rating_over_time` gives them; `label` names the plot for its
    title and for screen readers.

    The points are spaced evenly, one per rated game, rather than by date: a player's
    games come in bursts, and the starting point shares its date with the first game.
    The axes carry the lowest and highest value and the first and last date (dates as
    given: the caller chooses their time zone). A dashed guide marks zero, the
    starting ordinal, when the line crosses it.

    With no point there is nothing to draw but the words "no rated games yet"; with
    one, a dot and its value, with no line.
    """
    plot_left, plot_right = LEFT, WIDTH - RIGHT
    plot_top, plot_bottom = TOP, HEIGHT - BOTTOM
    axes = [
        f'<line class="axis" x1="{plot_left}" y1="{plot_top}" x2="{plot_left}" '
        f'y2="{plot_bottom}" style="{_attr(AXIS)}"/>',
        f'<line class="axis" x1="{plot_left}" y1="{plot_bottom}" x2="{plot_right}" '
        f'y2="{plot_bottom}" style="{_attr(AXIS)}"/>',
    ]
    if not points:
        middle = (plot_left + plot_right) / 2
        message = _text(
            middle, (plot_top + plot_bottom) / 2, NO_GAMES, anchor="middle", css="empty"
        )
        return _frame(label, [*axes, message])

    values = [value for _, value in points]
    low, high = min(values), max(values)
    # A flat line (or a single point) is drawn across the middle.
    spread = high - low or 2.0
    floor = low if high > low else low - 1.0

    def x_of(index: int) -> float:
        if len(points) == 1:
            return (plot_left + plot_right) / 2
        return plot_left + (plot_right - plot_left) * index / (len(points) - 1)

    def y_of(value: float) -> float:
        return plot_bottom - (plot_bottom - plot_top) * (value - floor) / spread

    body = list(axes)
    if low < 0 < high:
        zero = y_of(0.0)
        body.append(
            f'<line class="zero" x1="{plot_left}" y1="{zero:.1f}" x2="{plot_right}" '
            f'y2="{zero:.1f}" style="{_attr(GUIDE)}"/>'
        )
    body.append(_text(plot_left - 6, y_of(high) + 4, _number(high), anchor="end", css="max"))
    if high > low:
        body.append(_text(plot_left - 6, y_of(low) + 4, _number(low), anchor="end", css="min"))

    first_at, last_at = points[0][0], points[-1][0]
    below = plot_bottom + 18
    if len(points) == 1:
        body.append(_text(x_of(0), below, _date(first_at), anchor="middle", css="first"))
    else:
        body.append(_text(plot_left, below, _date(first_at), css="first"))
        body.append(_text(plot_right, below, _date(last_at), anchor="end", css="last"))

    coordinates = " ".join(f"{x_of(i):.1f},{y_of(v):.1f}" for i, v in enumerate(values))
    body.append(
        f'<polyline points="{coordinates}" fill="none" stroke-width="2" '
        f'stroke-linejoin="round" style="{_attr(LINE)}"/>'
    )
    # The latest rating, where the eye looks first.
    body.append(
        f'<circle class="latest" cx="{x_of(len(values) - 1):.1f}" cy="{y_of(values[-1]):.1f}" '
        f'r="3.5" style="fill: var(--secondary, #417690)"/>'
    )
    return _frame(label, body)
