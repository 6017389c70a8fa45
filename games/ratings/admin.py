"""Ratings in the staff dashboard: the leaderboard, and on a player's page their
rating, a plot of it over time and their recent games.

It lives in the games app, though the pages are the players app's (the leaderboard
is the Rating changelist, the player page is the Player change page), because
ratings are read through `games.ratings.reads` and the players app imports nothing of
games. `games.admin` imports this module, so the admin's autodiscovery registers
these pages; it replaces `players.admin.PlayerAdmin` with a subclass that adds the
rating to the page and changes nothing else.

Ratings are written by the transaction that ends a game; an operator changes them
only through the services: annulling a game's rating (`annul_ratings`, an action of
the games' list, through `games.ratings.annulment`), hiding a player from the leaderboard
(`players.admin`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe

from games.models import Game, GameStatus, RatingAnnulment, Result
from games.ratings import annulment, groups, rules
from games.ratings import reads as standings
from players import plots
from players import services as player_services
from players.admin import (
    PlayerAdmin,
    ReadOnlyAdmin,
    ReasonForm,
    ReasonQuestion,
    act_with_reason,
)
from players.models import Player, Rating
from unoservice.errors import ServiceError

LEADERBOARD_PAGE_SIZE = 50
RECENT_GAMES = 20


@dataclass(frozen=True)
class LeaderboardRow:
    rank: int
    key: str
    name: str
    url: str | None  # the player's admin page; a bot strategy has none
    rating: Rating


@dataclass(frozen=True)
class RecentGame:
    game_id: str
    url: str
    finished_at: dt.datetime
    place: int
    seats: int
    points: int
    others: str
    change: float | None  # of the ordinal; None for an unrated game


def bot_name(strategy: object) -> str:
    """A bot strategy as the dashboard names it among players."""
    return f"{strategy} (bot)"


def rating_name(row: Rating) -> str:
    name = standings.display_name(row)
    return name if row.player_id is not None else bot_name(name)


def leaderboard_position(row: Rating) -> int | None:
    """Where `row` stands in `standings.leaderboard()` (1-based), ties broken by key
    as the leaderboard breaks them: this finds the page it is listed on. None when
    it is not listed (no record yet, or its player hidden or disabled)."""
    hidden = row.player is not None and not standings.listed(row.player)
    if hidden or not standings.has_record(row):
        return None
    ahead = Q(ordinal__gt=row.ordinal) | Q(ordinal=row.ordinal, key__lt=row.key)
    return standings.leaderboard().filter(ahead).count() + 1


def leaderboard_url(row: Rating | None = None) -> str:
    """The leaderboard; given a listed rating, its page, scrolled to its row."""
    url = reverse("admin:players_rating_changelist")
    position = None if row is None else leaderboard_position(row)
    if row is None or position is None:
        return url
    page = (position - 1) // LEADERBOARD_PAGE_SIZE + 1
    return f"{url}?p={page}#rating-{row.key}"


def staff_viewer(request: HttpRequest) -> Player:
    """Whom `standings.history` reads for: the staff member at the dashboard, who
    may have no player of their own. An unsaved player linked to their user counts
    as staff, which is all `history` asks of a viewer to include private games."""
    user = request.user
    if not isinstance(user, get_user_model()) or not user.is_staff:
        raise PermissionDenied
    return Player(user=user)


def recent_games(request: HttpRequest, player: Player) -> list[RecentGame]:
    page = list(standings.history(str(player.pk), viewer=staff_viewer(request))[:RECENT_GAMES])
    games = []
    for entry in standings.history_entries(page):
        others = [
            bot_name(seat["bot"]) if seat["player"] is None else str(seat["player"]["name"])
            for seat in entry.players
            if seat["player"] is None or seat["player"]["id"] != str(player.pk)
        ]
        games.append(
            RecentGame(
                game_id=str(entry.game_id)[:8],
                url=reverse("admin:games_game_change", args=[entry.game_id]),
                finished_at=entry.finished_at,
                place=entry.place,
                seats=len(entry.players),
                points=entry.points,
                others=", ".join(others) or "—",
                change=None if entry.rating_change is None else entry.rating_change["ordinal"],
            )
        )
    return games


def rating_plot(player: Player) -> SafeString:
    points = [
        (timezone.localtime(at), value) for at, value in standings.rating_over_time(str(player.pk))
    ]
    # plots.rating_plot escapes every text it writes, the player's name included.
    return mark_safe(plots.rating_plot(points, label=f"Rating of {player.name} over time"))


def rating_context(request: HttpRequest, player: Player) -> dict[str, Any]:
    """What a player's page shows of their rating and games."""
    standing = standings.player_standing(player)
    row = Rating.objects.filter(key=standing.key).first()
    return {
        "standing": standing,
        "rating": standing.rating,
        "min_games_to_rank": standings.MIN_GAMES_TO_RANK,
        "min_opponents_to_rank": standings.MIN_OPPONENTS_TO_RANK,
        "player_hidden": player.leaderboard_hidden,
        "player_disabled": player.disabled_at is not None,
        "rating_plot": rating_plot(player),
        "recent_games": recent_games(request, player),
        "leaderboard_url": leaderboard_url(row),
    }


@admin.action(description="Annul the rating of the selected games…", permissions=["abandon"])
def annul_ratings(
    model_admin: admin.ModelAdmin[Game], request: HttpRequest, queryset: QuerySet[Game]
) -> HttpResponse | None:
    """An action of the games' list: asks why, then annuls each game's rating through
    `annulment.game_rating_annul`, which recomputes the ratings it moved."""
    question = ReasonQuestion(
        action_name="annul_ratings",
        title="Annul these games' ratings?",
        explanation="Each game stops counting for ratings: its players' ratings, and "
        "every rating their later games moved, are computed again without it. The games "
        "stay in the players' histories, marked annulled.",
        submit_label="Annul",
        label=lambda game: f"{str(game.pk)[:8]} ({game.status})",
    )

    def act(game: Game, reason: str) -> None:
        annulment.game_rating_annul(game_id=game.pk, by=request.user, reason=reason)

    return act_with_reason(model_admin, request, queryset, question, act)


def rating_outcome(game: Game) -> str:
    """What a game counted for, as its page says it."""
    if game.status != GameStatus.FINISHED:
        return "—"
    annulled = RatingAnnulment.objects.filter(game=game).first()
    if annulled is not None:
        at = timezone.localtime(annulled.at).strftime("%Y-%m-%d %H:%M")
        return f"annulled by {annulled.by_username} at {at}: {annulled.reason}"
    first = Result.objects.filter(game=game).order_by("seat").first()
    if first is None:
        return "—"
    if first.rated:
        return "rated"
    reason = first.unrated_reason or "unrated"
    return "unrated" if reason == rules.UNRATED_GAME else f"unrated ({reason})"


class RatedPlayerAdmin(PlayerAdmin):
    """`PlayerAdmin`, with the player's rating, its plot and their recent games on
    their page, and the leaderboard a click away from the list."""

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        context = dict(extra_context or {})
        player = self.get_object(request, object_id)
        if player is not None and self.has_view_or_change_permission(request, player):
            context.update(rating_context(request, player))
        return super().change_view(request, object_id, form_url, context)

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        context = {**(extra_context or {}), "leaderboard_url": leaderboard_url()}
        return super().changelist_view(request, context)


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin, admin.ModelAdmin[Rating]):
    """Its changelist is the leaderboard: the ratings with the record
    (`standings.has_record`) but hidden players', best first, a page of
    `LEADERBOARD_PAGE_SIZE` at a time, players and bot strategies together."""

    fields = (
        "key",
        "player",
        "bot",
        "mu",
        "sigma",
        "ordinal",
        "games",
        "opponents_met",
        "updated_at",
    )
    readonly_fields = fields

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        if not self.has_view_or_change_permission(request):
            raise PermissionDenied
        pages = Paginator(standings.leaderboard(), LEADERBOARD_PAGE_SIZE)
        page = pages.get_page(request.GET.get("p"))
        rows: list[Rating] = list(page)
        board = [
            LeaderboardRow(
                rank=rank,
                key=row.key,
                name=rating_name(row),
                url=(
                    None
                    if row.player_id is None
                    else reverse("admin:players_player_change", args=[row.player_id])
                ),
                rating=row,
            )
            for row, rank in zip(rows, standings.ranks(rows, page.start_index()), strict=True)
        ]
        context = {
            **self.admin_site.each_context(request),
            **(extra_context or {}),
            "opts": self.model._meta,
            "title": "Leaderboard",
            "page": page,
            "board": board,
            "min_games_to_rank": standings.MIN_GAMES_TO_RANK,
            "min_opponents_to_rank": standings.MIN_OPPONENTS_TO_RANK,
        }
        return TemplateResponse(request, "admin/players/rating/leaderboard.html", context)

    def get_urls(self) -> list[URLPattern]:
        view = self.admin_site.admin_view(self.closed_groups_view)
        own = [path("closed-groups/", view, name="players_rating_closed_groups")]
        return [*own, *super().get_urls()]

    def closed_groups_view(self, request: HttpRequest) -> HttpResponse:
        """The closed groups (`groups.closed_groups`), each with its members and its
        games among themselves, and two actions that ask why: hide the members from
        the leaderboard (`players.services.leaderboard_hide`), annul the ratings of
        their games among themselves (`annulment.game_rating_annul`)."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        if request.method == "POST":
            if not request.user.has_perm("games.change_game"):
                raise PermissionDenied
            act_on_group(request)
            return HttpResponseRedirect(request.path)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Closed groups",
            "groups": groups.closed_groups(),
            "window_days": groups.WINDOW.days,
            "min_share": round(groups.MIN_SHARE * 100),
            "max_members": groups.MAX_MEMBERS,
            "form": ReasonForm(),
        }
        return TemplateResponse(request, "admin/players/rating/closed_groups.html", context)


def act_on_group(request: HttpRequest) -> None:
    """Hide the posted members, or annul their rated games among themselves, for the
    reason given; each refusal of a service is reported, not raised."""
    form = ReasonForm(request.POST)
    members = request.POST.getlist("member")
    what = request.POST.get("act")
    if not form.is_valid() or not members or what not in ("hide", "annul"):
        messages.error(request, "Say why, and choose a group.")
        return
    reason = form.cleaned_data["reason"]
    done, refused = 0, []
    targets = members if what == "hide" else groups.games_among(members)
    for target in targets:
        try:
            if what == "hide":
                player_services.leaderboard_hide(
                    player_id=target, hidden=True, by=request.user, reason=reason
                )
            else:
                annulment.game_rating_annul(game_id=target, by=request.user, reason=reason)
            done += 1
        except ServiceError as error:
            refused.append(f"{str(target)[:8]}: {error.message}")
    verb = "hidden" if what == "hide" else "games annulled"
    messages.success(request, f"{done} {verb}.")
    if refused:
        messages.warning(request, "Refused: " + "; ".join(refused))


admin.site.unregister(Player)
admin.site.register(Player, RatedPlayerAdmin)
