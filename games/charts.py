"""Bar charts drawn on the server as inline SVG, for the staff overview: no script,
no chart library and nothing fetched from elsewhere, so a page shows them as it loads
and a test reads their numbers from the markup.

Pure functions of their arguments, in the manner of `players.plots` (whose colours
they share, so that both follow the admin's light and dark themes). Every piece of
text that goes into the SVG is escaped here, so the caller may mark the result safe.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from players.plots import AXIS, TEXT

WIDTH, HEIGHT = 640, 220
# Room for the values on the left, the axis' name beside them, and two lines below
# (the bars' labels and the axis' name).
LEFT, RIGHT, TOP, BOTTOM = 58, 12, 16, 44
# With more bars than this, each bar's value stays in its tooltip and the table:
# written above thin bars they would run into each other.
MAX_VALUES_SHOWN = 14

BAR = "fill: var(--secondary, #417690)"
NO_DATA = "nothing to show yet"


@dataclass(frozen=True)
class Bar:
    """One bar: `label` under it (may be empty, to thin out a crowded axis), its
    `value`, how the value reads (`shown`, e.g. "42%"), and `title`, the bar's
    tooltip and its name for screen readers."""

    label: str
    value: float
    shown: str
    title: str


def _attr(value: object) -> str:
    return escape(str(value), quote=True)


def _text(x: float, y: float, body: str, *, anchor: str = "middle", css: str = "") -> str:
    css_attr = f' class="{_attr(css)}"' if css else ""
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="11" '
        f'style="{_attr(TEXT)}"{css_attr}>{escape(body)}</text>'
    )


def bar_chart(
    bars: Sequence[Bar],
    *,
    title: str,
    x_label: str,
    y_label: str,
    maximum: float | None = None,
) -> str:
    """An SVG of `bars`, left to right, from zero up to `maximum` (by default the
    largest value; a percentage passes 100). `title` names the chart for its
    <title> and screen readers; `x_label` and `y_label` name the axes.

    Each bar is a `rect.bar` holding a <title> with its words, so that hovering
    tells its value and a reader of the markup finds every number. With no bars,
    or only zeros, the axes carry the words "nothing to show yet".
    """
    plot_left, plot_right = LEFT, WIDTH - RIGHT
    plot_top, plot_bottom = TOP, HEIGHT - BOTTOM
    top_value = max([maximum or 0.0, *(bar.value for bar in bars)])
    body = [
        f'<line class="axis" x1="{plot_left}" y1="{plot_top}" x2="{plot_left}" '
        f'y2="{plot_bottom}" style="{_attr(AXIS)}"/>',
        f'<line class="axis" x1="{plot_left}" y1="{plot_bottom}" x2="{plot_right}" '
        f'y2="{plot_bottom}" style="{_attr(AXIS)}"/>',
        _text(plot_left - 6, plot_bottom + 4, "0", anchor="end", css="min"),
        _text((plot_left + plot_right) / 2, HEIGHT - 6, x_label, css="x-label"),
        # Turned to run up the y axis, as axis names do.
        f'<text class="y-label" x="0" y="0" text-anchor="middle" font-size="11" '
        f'style="{_attr(TEXT)}" transform="translate(14 {(plot_top + plot_bottom) / 2:.1f}) '
        f'rotate(-90)">{escape(y_label)}</text>',
    ]
    if top_value > 0:
        shown_top = f"{top_value:g}"
        body.append(_text(plot_left - 6, plot_top + 4, shown_top, anchor="end", css="max"))
    if not bars or top_value <= 0:
        middle = (plot_top + plot_bottom) / 2
        body.append(_text((plot_left + plot_right) / 2, middle, NO_DATA, css="empty"))

    slot = (plot_right - plot_left) / max(len(bars), 1)
    width = max(slot * 0.7, 1.0)
    for index, bar in enumerate(bars):
        x = plot_left + slot * index + (slot - width) / 2
        height = 0.0 if top_value <= 0 else (plot_bottom - plot_top) * bar.value / top_value
        body.append(
            f'<rect class="bar" x="{x:.1f}" y="{plot_bottom - height:.1f}" '
            f'width="{width:.1f}" height="{height:.1f}" style="{_attr(BAR)}" '
            f'data-value="{_attr(bar.value)}"><title>{escape(bar.title)}</title></rect>'
        )
        centre = x + width / 2
        if bar.label:
            body.append(_text(centre, plot_bottom + 15, bar.label, css="bar-label"))
        if len(bars) <= MAX_VALUES_SHOWN and top_value > 0:
            body.append(_text(centre, plot_bottom - height - 4, bar.shown, css="value"))
    # role and aria-label let a screen reader announce the chart by what it shows.
    return "".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" class="uno-chart" role="img" '
            f'width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" '
            f'aria-label="{_attr(title)}">',
            f"<title>{escape(title)}</title>",
            *body,
            "</svg>",
        ]
    )
