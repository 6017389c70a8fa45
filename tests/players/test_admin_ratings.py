"""Ratings in the staff dashboard: the leaderboard, a player's rating with its plot
and their recent games, and the SVG plot itself."""

from __future__ import annotations

import datetime as dt
import re
import xml.etree.ElementTree as ET

import pytest
from django.urls import reverse

from games.models import Result
from players import plots, rating
from players.models import Player, Rating, bot_key
from tests.factories import PlayerFactory, make_persona, start_game
from tests.factories import finish_game as finish

SVG = "{http://www.w3.org/2000/svg}"


def rate(
    name_or_player: str | Player, mu: float, sigma: float, games: int, opponents: int = 3
) -> Rating:
    """A rating row written directly: a player's, or with a strategy's name a bot's;
    it met `opponents` different people."""
    skill = rating.Skill(mu, sigma)
    if isinstance(name_or_player, Player):
        owner = {"key": str(name_or_player.pk), "player": name_or_player}
    else:
        owner = {"key": bot_key(name_or_player), "bot": name_or_player}
    return Rating.objects.create(
        mu=mu, sigma=sigma, ordinal=skill.ordinal, games=games, opponents_met=opponents, **owner
    )


def player(name: str) -> Player:
    return PlayerFactory(name=name)  # type: ignore[no-any-return]


def board(page: str) -> list[tuple[str, int]]:
    """The leaderboard's rows as (key, rank), top first."""
    rows = re.findall(r'data-key="([^"]+)" data-rank="(\d+)"', page)
    return [(key, int(rank)) for key, rank in rows]


def get(client, url: str, **params: str) -> str:
    answer = client.get(url, params)
    assert answer.status_code == 200
    return answer.content.decode()


LEADERBOARD = reverse("admin:players_rating_changelist")


def polyline_points(page: str) -> list[str]:
    found = re.search(r'<polyline points="([^"]*)"', page)
    assert found is not None
    return found.group(1).split()


# -- the leaderboard ------------------------------------------------------------------


@pytest.mark.django_db
def test_the_leaderboard_ranks_players_and_bots_by_ordinal_from_five_rated_games(admin_client):
    ada, bob, cy, dee = player("Ada"), player("Bob"), player("Cy"), player("Dee")
    rate(ada, 30.0, 2.0, games=9)  # ordinal 24
    rate(bob, 28.0, 2.0, games=5)  # 22
    rate(cy, 40.0, 2.0, games=4)  # the best, but too few games to be listed
    rate(dee, 28.0, 2.0, games=6)  # 22, as Bob: they share a rank
    rate("greedy", 29.0, 2.0, games=50)  # 23

    page = get(admin_client, LEADERBOARD)
    keys = {str(p.pk): p.name for p in (ada, bob, cy, dee)}
    rows = [(keys.get(key, key), rank) for key, rank in board(page)]
    assert rows[0] == ("Ada", 1)
    assert rows[1] == (bot_key("greedy"), 2)
    assert sorted(rows[2:]) == [("Bob", 3), ("Dee", 3)]
    assert str(cy.pk) not in page
    assert "greedy (bot)" in page
    assert "4 ranked" in page
    # A player's name leads to their page; the bot has none.
    assert f'href="{reverse("admin:players_player_change", args=[ada.pk])}"' in page
    assert "24.00" in page  # Ada's ordinal


@pytest.mark.django_db
def test_the_leaderboard_is_paginated_fifty_to_a_page(admin_client):
    for number in range(51):
        rate(player(f"P{number:02}"), 50.0 - number / 10, 1.0, games=5)
    first = board(get(admin_client, LEADERBOARD))
    assert len(first) == 50
    assert first[0][1] == 1
    assert first[-1][1] == 50
    assert "page 1 of 2" in get(admin_client, LEADERBOARD)
    second = get(admin_client, LEADERBOARD, p="2")
    assert [rank for _, rank in board(second)] == [51]
    assert "P50" in second


@pytest.mark.django_db
def test_the_leaderboard_says_when_nobody_is_ranked(admin_client):
    rate(player("New"), 30.0, 2.0, games=1)
    page = get(admin_client, LEADERBOARD)
    assert "Nobody has played 5 rated games against 3 different people yet." in page


@pytest.mark.django_db
def test_the_leaderboard_is_reached_from_the_index_and_the_players_list(admin_client):
    assert f'href="{LEADERBOARD}"' in get(admin_client, reverse("admin:index"))
    players = get(admin_client, reverse("admin:players_player_changelist"))
    assert f'<a href="{LEADERBOARD}">Leaderboard</a>' in players


# -- a player's page ------------------------------------------------------------------


@pytest.fixture
def played(host, guest):
    """Host's games, oldest first: three rated (one of them private, one with a bot)
    and one unrated."""
    finish(start_game(host, guest, seed=3), winner=0, by=host)
    finish(start_game(host, guest, seed=4, visibility="private"), winner=1, by=guest)
    finish(start_game(host, guest, "greedy", seed=5), winner=0, by=host)
    finish(start_game(host, guest, seed=6, rated=False), winner=0, by=host)
    return host


def player_page(client, who: Player) -> str:
    return get(client, reverse("admin:players_player_change", args=[who.pk]))


@pytest.mark.django_db
def test_a_players_page_shows_their_rating_and_its_plot(admin_client, played):
    page = player_page(admin_client, played.player)
    row = Rating.objects.get(player=played.player)
    assert row.games == 3
    assert f'<strong id="rating-ordinal">{row.ordinal:.2f}</strong>' in page
    assert f'<strong id="rating-mu">{row.mu:.2f}</strong>' in page
    assert f'<strong id="rating-sigma">{row.sigma:.2f}</strong>' in page
    assert '<strong id="rating-games">3</strong>' in page
    assert "unranked" in page  # 3 rated games of the 5 it takes
    # The starting rating, then one point per rated game.
    assert len(polyline_points(page)) == 3 + 1
    assert "no rated games yet" not in page


@pytest.mark.django_db
def test_a_players_page_lists_their_recent_games_with_the_change_of_rating(admin_client, played):
    page = player_page(admin_client, played.player)
    results = list(Result.objects.filter(key=str(played.player.pk)).order_by("-finished_at"))
    assert len(results) == 4
    rows = re.findall(r'<tr data-game="([0-9a-f]{8})">(.*?)</tr>', page, re.S)
    # Newest first, the private game included: staff see every game.
    assert [game for game, _ in rows] == [str(r.game_id)[:8] for r in results]
    for (_, cells), result in zip(rows, results, strict=True):
        assert f'href="{reverse("admin:games_game_change", args=[result.game_id])}"' in cells
        seats = Result.objects.filter(game_id=result.game_id).count()
        assert f'<td class="place">{result.place} of {seats}</td>' in cells
        if not result.rated:
            assert "unrated" in cells
            continue
        before = rating.Skill(result.mu_before, result.sigma_before).ordinal
        after = rating.Skill(result.mu_after, result.sigma_after).ordinal
        assert f"{after - before:+.2f}" in cells
    assert "Guest, greedy (bot)" in page  # whom they played with


@pytest.mark.django_db
def test_a_ranked_players_page_links_to_their_row_of_the_leaderboard(admin_client):
    ranked = player("Ranked")
    rate(ranked, 30.0, 2.0, games=7)
    rate("greedy", 35.0, 2.0, games=7)
    page = player_page(admin_client, ranked)
    link = f'<a href="{LEADERBOARD}?p=1#rating-{ranked.pk}">2</a>'
    assert link in page


@pytest.mark.django_db
def test_a_player_with_no_rated_game_has_an_empty_plot(admin_client):
    newcomer = make_persona("Newcomer").player
    page = player_page(admin_client, newcomer)
    assert "no rated games yet" in page
    assert "<polyline" not in page
    assert '<strong id="rating-games">0</strong>' in page
    assert "No finished games yet." in page


@pytest.mark.django_db
def test_a_players_name_is_escaped_in_the_plot(admin_client, host, guest):
    Player.objects.filter(pk=host.player.pk).update(name="<b>&co")
    finish(start_game(host, guest, seed=3), winner=0, by=host)
    page = player_page(admin_client, host.player)
    assert "Rating of &lt;b&gt;&amp;co over time" in page
    assert "<b>&co" not in page


# -- staff only -----------------------------------------------------------------------


@pytest.mark.django_db
def test_the_pages_are_for_staff_only(client, django_user_model, host):
    pages = [LEADERBOARD, reverse("admin:players_player_change", args=[host.player.pk])]
    for url in pages:
        answer = client.get(url)
        assert answer.status_code == 302
        assert "/admin/login/" in answer["Location"]
    client.force_login(django_user_model.objects.create_user("someone"))  # not staff
    for url in pages:
        answer = client.get(url)
        assert answer.status_code == 302
        assert "/admin/login/" in answer["Location"]


# -- the plot -------------------------------------------------------------------------

START = dt.datetime(2025, 3, 1, 12, 0, tzinfo=dt.UTC)


def parse(svg: str) -> ET.Element:
    """The SVG as XML: it must be well formed, whatever went into it."""
    return ET.fromstring(svg)


def texts(svg: str) -> dict[str, str]:
    return {t.get("class") or "": t.text or "" for t in parse(svg).iter(f"{SVG}text")}


def test_the_plot_draws_one_point_per_value_with_axes_and_labels():
    values = [0.0, 1.5, -2.25, 3.0]
    points = [(START + dt.timedelta(days=day), value) for day, value in enumerate(values)]
    svg = plots.rating_plot(points, label="Rating of Ada")
    root = parse(svg)
    line = root.find(f"{SVG}polyline")
    assert line is not None
    coordinates = [tuple(map(float, p.split(","))) for p in line.get("points", "").split()]
    assert len(coordinates) == 4
    xs = [x for x, _ in coordinates]
    assert xs == sorted(xs)  # left to right, oldest first
    ys = [y for _, y in coordinates]
    assert ys.index(min(ys)) == 3  # the highest value is drawn highest
    assert ys.index(max(ys)) == 2
    assert len(root.findall(f"{SVG}line[@class='axis']")) == 2
    assert root.find(f"{SVG}line[@class='zero']") is not None  # the line crosses 0
    labels = texts(svg)
    assert labels["max"] == "3.00"
    assert labels["min"] == "-2.25"
    assert labels["first"] == "2025-03-01"
    assert labels["last"] == "2025-03-04"
    assert "empty" not in labels
    assert root.get("aria-label") == "Rating of Ada"


def test_the_plot_escapes_its_label():
    svg = plots.rating_plot([(START, 1.0), (START, 2.0)], label='Rating of <&>" over time')
    assert "<&>" not in svg
    assert "Rating of &lt;&amp;&gt;" in svg
    root = parse(svg)
    assert root.get("aria-label") == 'Rating of <&>" over time'
    title = root.find(f"{SVG}title")
    assert title is not None
    assert title.text == 'Rating of <&>" over time'


def test_the_plot_of_one_point_is_a_dot_with_its_value():
    svg = plots.rating_plot([(START, 4.5)], label="one")
    root = parse(svg)
    labels = texts(svg)
    assert labels["max"] == "4.50"
    assert "min" not in labels  # the one value is both
    assert labels["first"] == "2025-03-01"
    assert "last" not in labels
    assert root.find(f"{SVG}circle") is not None
    line = root.find(f"{SVG}polyline")
    assert line is not None
    assert len(line.get("points", "").split()) == 1


def test_the_plot_of_no_point_says_there_are_no_rated_games():
    svg = plots.rating_plot([], label="none")
    root = parse(svg)
    assert root.find(f"{SVG}polyline") is None
    assert texts(svg) == {"empty": "no rated games yet"}
    assert len(root.findall(f"{SVG}line[@class='axis']")) == 2


def test_a_flat_line_is_drawn_across_the_middle():
    svg = plots.rating_plot([(START, 2.0), (START, 2.0), (START, 2.0)], label="flat")
    line = parse(svg).find(f"{SVG}polyline")
    assert line is not None
    ys = {p.split(",")[1] for p in line.get("points", "").split()}
    assert len(ys) == 1
    top, bottom = plots.TOP, plots.HEIGHT - plots.BOTTOM
    assert float(ys.pop()) == pytest.approx((top + bottom) / 2)
