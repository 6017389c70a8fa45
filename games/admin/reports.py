"""The staff's queue of table-talk reports: open reports first, filtered by status
and reason; a report's page with what was said around the reported message (the
reported one marked, with the words as typed before masking); and the actions,
each through `games.talk.moderation`: warn the player, mute their table talk for an
hour, a day or a week, disable their account, or dismiss the report."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from games.talk import moderation, selectors
from games.talk.models import Report
from players.admin import ReadOnlyAdmin
from players.models import player_tag

# An action of the queue: the service it calls (report id, staff user) and what it did.
Moderation = Callable[[Any, Any], Report]


def _mute_for(period: dt.timedelta) -> Moderation:
    return lambda report_id, by: moderation.report_mute(report_id=report_id, period=period, by=by)


MODERATIONS: dict[str, tuple[str, Moderation]] = {
    "warn": (
        "Warn the player",
        lambda report_id, by: moderation.report_warn(report_id=report_id, by=by),
    ),
    "mute_hour": ("Mute their table talk for 1 hour", _mute_for(moderation.MUTE_PERIODS["1 hour"])),
    "mute_day": ("Mute their table talk for 1 day", _mute_for(moderation.MUTE_PERIODS["1 day"])),
    "mute_week": (
        "Mute their table talk for 7 days",
        _mute_for(moderation.MUTE_PERIODS["7 days"]),
    ),
    "disable": (
        "Disable the player",
        lambda report_id, by: moderation.report_disable(report_id=report_id, by=by),
    ),
    "dismiss": (
        "Dismiss the report",
        lambda report_id, by: moderation.report_dismiss(report_id=report_id, by=by),
    ),
}


def _named(player: Any) -> str:
    return f"{player.name}#{player_tag(player.pk)}"


@admin.register(Report)
class ReportAdmin(ReadOnlyAdmin, admin.ModelAdmin[Report]):
    list_display = (
        "id",
        "created",
        "status",
        "reason",
        "reported_name",
        "reporter_name",
        "what",
        "game_link",
    )
    list_filter = ("status", "reason")
    list_per_page = 50
    actions = (
        "warn_players",
        "mute_players_hour",
        "mute_players_day",
        "mute_players_week",
        "disable_players",
        "dismiss_reports",
    )
    fields = (
        "id",
        "status",
        "reason",
        "note",
        "reported_name",
        "reporter_name",
        "game_link",
        "created_at",
        "handled_by",
        "handled_at",
        "context_table",
        "moderate",
    )
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[Report]:
        # Not the admin's own queryset, which is ordered by `get_ordering` before the
        # queue's annotation exists.
        return selectors.reports_queue()

    def get_ordering(self, request: HttpRequest) -> tuple[str, ...]:
        # Open reports first (`queue_rank`), the newest first among each.
        return ("queue_rank", "-created_at")

    def has_moderate_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("games.change_report")

    # -- columns ---------------------------------------------------------------------

    @admin.display(description="created", ordering="created_at")
    def created(self, report: Report) -> str:
        return timezone.localtime(report.created_at).strftime("%Y-%m-%d %H:%M")

    @admin.display(description="reported")
    def reported_name(self, report: Report) -> str:
        return _named(report.reported)

    @admin.display(description="by")
    def reporter_name(self, report: Report) -> str:
        return _named(report.reporter)

    @admin.display(description="message or note")
    def what(self, report: Report) -> str:
        said = [entry for entry in report.context if entry.get("reported")]
        if report.message_id is not None and said:
            typed = said[0].get("typed") or said[0].get("text", "")
            return f"“{typed}”"
        return report.note or "(the player)"

    @admin.display(description="game")
    def game_link(self, report: Report) -> SafeString:
        url = reverse("admin:games_game_change", args=[report.game_id])
        return format_html('<a href="{}">{}</a>', url, str(report.game_id)[:8])

    @admin.display(description="what was said")
    def context_table(self, report: Report) -> SafeString:
        """The copied messages, the reported one marked; free text as typed (before
        masking) beside what readers saw."""
        if not report.context:
            return format_html("{}", "nothing was said at the table")
        rows = format_html_join(
            "",
            "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    format_html(' class="reported" style="{}"', "background:#fde2e2")
                    if entry.get("reported")
                    else "",
                    "▶ reported" if entry.get("reported") else "",
                    entry.get("at", "")[:19].replace("T", " "),
                    "spectator" if entry.get("seat") is None else f"seat {entry['seat']}",
                    entry.get("name", ""),
                    entry.get("typed") or entry.get("text", ""),
                )
                for entry in report.context
            ),
        )
        return format_html(
            '<table class="talk-context"><thead><tr><th></th><th>at</th><th>who</th>'
            "<th>name</th><th>said (as typed)</th></tr></thead><tbody>{}</tbody></table>",
            rows,
        )

    @admin.display(description="act")
    def moderate(self, report: Report) -> SafeString:
        """Buttons that post the change page's own form (and its CSRF token) to
        `moderate_view`."""
        return format_html_join(
            " ",
            '<button type="submit" class="button" formaction="{}">{}</button>',
            (
                (reverse("admin:games_report_moderate", args=[report.pk, name]), label)
                for name, (label, _) in MODERATIONS.items()
            ),
        )

    # -- actions (through games.talk.moderation) -------------------------------------

    def _moderate(self, request: HttpRequest, report_ids: list[Any], name: str) -> None:
        label, act = MODERATIONS[name]
        done = 0
        for report_id in report_ids:
            act(report_id, request.user)
            done += 1
        self.message_user(
            request, f"{label}: done for {done} report{'' if done == 1 else 's'}.", messages.SUCCESS
        )

    def _chosen(self, queryset: QuerySet[Report]) -> list[Any]:
        return [report.pk for report in queryset]

    @admin.action(description="Warn the reported players", permissions=["moderate"])
    def warn_players(self, request: HttpRequest, queryset: QuerySet[Report]) -> None:
        self._moderate(request, self._chosen(queryset), "warn")

    @admin.action(description="Mute their table talk for 1 hour", permissions=["moderate"])
    def mute_players_hour(self, request: HttpRequest, queryset: QuerySet[Report]) -> None:
        self._moderate(request, self._chosen(queryset), "mute_hour")

    @admin.action(description="Mute their table talk for 1 day", permissions=["moderate"])
    def mute_players_day(self, request: HttpRequest, queryset: QuerySet[Report]) -> None:
        self._moderate(request, self._chosen(queryset), "mute_day")

    @admin.action(description="Mute their table talk for 7 days", permissions=["moderate"])
    def mute_players_week(self, request: HttpRequest, queryset: QuerySet[Report]) -> None:
        self._moderate(request, self._chosen(queryset), "mute_week")

    @admin.action(description="Disable the reported players", permissions=["moderate"])
    def disable_players(self, request: HttpRequest, queryset: QuerySet[Report]) -> None:
        self._moderate(request, self._chosen(queryset), "disable")

    @admin.action(description="Dismiss the selected reports", permissions=["moderate"])
    def dismiss_reports(self, request: HttpRequest, queryset: QuerySet[Report]) -> None:
        self._moderate(request, self._chosen(queryset), "dismiss")

    # -- a report's page --------------------------------------------------------------

    def get_urls(self) -> list[URLPattern]:
        own = [
            path(
                "<int:report_id>/moderate/<str:name>/",
                self.admin_site.admin_view(self.moderate_view),
                name="games_report_moderate",
            ),
        ]
        return own + super().get_urls()

    def moderate_view(self, request: HttpRequest, report_id: int, name: str) -> HttpResponse:
        """One action on one report, from the buttons of its page."""
        if request.method != "POST" or name not in MODERATIONS:
            raise Http404("no such action")
        if not self.has_moderate_permission(request):
            raise PermissionDenied
        if selectors.report_or_none(report_id) is None:
            raise Http404("no such report")
        self._moderate(request, [report_id], name)
        return HttpResponseRedirect(reverse("admin:games_report_change", args=[report_id]))
