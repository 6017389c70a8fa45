"""The staff dashboard: games with their seats and log (`game`), a replay viewer
that steps through any game event by event and an overview of play and of the
service's health (`pages`), in the words of `words`; the queue of table-talk
reports and its moderation (`reports`); the ratings' pages are
`games.ratings.admin`'s.

Nothing here changes a game except through `games.services` (the abandon action,
after a page that asks for a reason); the pages only read. A waiting or running
game's page follows the game live: it listens to the game's stream
(`/api/v1/games/{id}/stream`, opened with the staff member's session) and redraws
its fields, seats and log as changes come in.

Seats are named as people say them ("alice", "bot (expert)"), never as the stored
dicts, and the house rules as words.
"""

from __future__ import annotations

from typing import cast

from django.contrib import admin
from django.urls import reverse_lazy

from games.admin.game import LOG_PAGE_SIZE, AbandonForm, GameAdmin, HasBotsFilter, SeatInline
from games.admin.pages import overview_charts
from games.admin.reports import ReportAdmin
from games.admin.words import (
    COLOR_CLASSES,
    OFFICIAL_RULES,
    RULE_NAMES,
    abandoned_in_words,
    card_html,
    cards_html,
    describe_event,
    duration_in_words,
    rules_in_words,
    seat_at,
    seat_label,
    seat_name,
)

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

__all__ = [
    "COLOR_CLASSES",
    "LOG_PAGE_SIZE",
    "OFFICIAL_RULES",
    "RULE_NAMES",
    "AbandonForm",
    "GameAdmin",
    "HasBotsFilter",
    "ReportAdmin",
    "SeatInline",
    "abandoned_in_words",
    "card_html",
    "cards_html",
    "describe_event",
    "duration_in_words",
    "overview_charts",
    "rules_in_words",
    "seat_at",
    "seat_label",
    "seat_name",
]
