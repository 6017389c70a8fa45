"""The staff pages say what was so: each event of the log names its seats as they were
held as of that event (not as they are now), a paused game says it is paused and
until when, and "rated" means what docs/api.md says: a game against bots alone is
never rated, and the API's `rated` says so too."""

from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from games import services
from games.models import Event, Game, GameStatus
from tests.factories import Persona, human_to_act_game, reload, seat_table, start_game
from tests.games.test_pause_and_resume import walk_away

pytestmark = pytest.mark.django_db

# A row of the log: its seq, and its last cell, the event in words.
ROW = re.compile(r'<tr data-seq="(\d+)">.*?<td>((?:(?!<td>).)*?)</td></tr>', re.S)


def game_page(admin_client, game: Game, **params: str) -> str:
    answer = admin_client.get(reverse("admin:games_game_change", args=[game.pk]), params)
    assert answer.status_code == 200
    return answer.content.decode()


def log_lines(admin_client, game: Game) -> dict[int, str]:
    """Every event of the game's log in words on its admin page, by seq, as text."""
    lines: dict[int, str] = {}
    page = 1
    while True:
        shown = game_page(admin_client, game, log_page=str(page))
        for seq, row in ROW.findall(shown):
            lines[int(seq)] = html.unescape(re.sub(r"<[^>]+>", "", row))
        if f"page {page} of {page}" in shown:
            return lines
        page += 1


def first(game: Game, kind: str, seat: int, after: int = 0) -> int:
    """The seq of the first `kind` event of `seat` after seq `after`."""
    event = Event.objects.filter(game=game, type=kind, seat=seat, seq__gt=after).order_by("seq")
    found = event.first()
    assert found is not None, f"no {kind} of seat {seat} after {after}"
    return found.seq


def bot_plays_for_the_host(game: Game, guest: Persona) -> Game:
    """Play on, the guest answering, until the bot holding the host's seat has moved."""
    taken = first(game, "seat_taken_by_bot", 0)
    for _ in range(200):
        game = reload(game)
        moved = Event.objects.filter(game=game, seat=0, seq__gt=taken).exclude(
            type__in=("seat_taken_by_bot", "turn_timed_out")
        )
        if moved.exists():
            return game
        if services.bot_act(game_id=game.pk, version=game.version) is not None:
            continue
        view = guest.get(f"/games/{game.pk}").json()
        move = view["you"]["legal_moves"][-1]
        if move["action"] in ("challenge", "accept"):
            body = {"version": view["version"], "challenge": False}
            assert guest.post(f"/games/{game.pk}/challenge", body).status_code == 200
        else:
            assert guest.move(game.pk, view["version"], **move).status_code == 200
    raise AssertionError("the bot never moved for the host")


def test_each_event_of_the_log_names_the_seat_as_it_was_held_then(admin_client, host, guest):
    game = walk_away(human_to_act_game(host, guest, turn_timeout=5), 0, answer={1: guest})
    game = bot_plays_for_the_host(game, guest)
    assert host.post(f"/games/{game.pk}/resume").status_code == 200
    game = reload(game)
    assert game.status == GameStatus.PLAYING
    lines = log_lines(admin_client, game)
    assert len(lines) == game.last_seq

    joined = first(game, "player_joined", 0)
    assert "seat 0 (Host)" in lines[joined]
    assert "bot" not in lines[joined]
    assert "seat 1 (Guest)" in lines[first(game, "player_joined", 1)]
    taken = first(game, "seat_taken_by_bot", 0)
    assert "seat 0 (Host)" in lines[taken]  # whose seat was taken
    resumed = first(game, "seat_resumed", 0)
    played_for_host = [
        seq
        for seq, line in lines.items()
        if taken < seq < resumed
        and line.startswith(("card_played", "cards_drawn", "turn_p"))
        and "seat 0 " in line
    ]
    assert played_for_host
    for seq in played_for_host:
        assert "seat 0 (bot (greedy) for Host)" in lines[seq]
    assert "seat 0 (Host)" in lines[resumed]
    before = [line for seq, line in lines.items() if seq < taken and "seat 0 " in line]
    assert before
    assert not any("bot (greedy) for Host" in line for line in before)


def test_the_replay_viewer_names_the_seats_as_they_were_held_at_the_step(admin_client, host, guest):
    game = walk_away(human_to_act_game(host, guest, turn_timeout=5), 0, answer={1: guest})
    joined = first(game, "player_joined", 0)
    url = reverse("admin:games_game_replay", args=[game.pk])
    page = html.unescape(admin_client.get(url, {"seq": joined}).content.decode())
    assert "seat 0 (Host)" in page
    assert "bot (greedy) for Host" not in page  # nearby events are all before the takeover


def paused_game(host: Persona) -> Game:
    """The host against a bot, away until a bot holds their seat: paused for want of
    humans."""
    game = walk_away(start_game(host, "greedy", seed=5, turn_timeout=5), 0)
    assert game.status == GameStatus.PLAYING
    assert game.paused_until is not None
    return game


def test_a_paused_game_says_it_is_paused_and_until_when(admin_client, host):
    game = paused_game(host)
    until = timezone.localtime(game.paused_until).strftime("%Y-%m-%d %H:%M:%S")
    page = game_page(admin_client, game)
    assert f"Paused until {until}" in page
    assert "(paused)" in page  # the page's title and heading
    listed = admin_client.get(reverse("admin:games_game_changelist")).content.decode()
    assert f"Paused until {until}" in listed


def test_a_running_game_not_paused_says_playing(admin_client, host, guest):
    game = start_game(host, guest, seed=5)
    page = game_page(admin_client, game)
    assert "Playing" in page
    assert "Paused until" not in page


def rated_row(page: str) -> str:
    found = re.search(
        r'<label>rated:</label>\s*<div class="readonly">(.*?)</div>', page, re.S | re.I
    )
    assert found is not None
    return html.unescape(found.group(1)).strip()


def test_a_game_of_one_human_against_bots_is_shown_unrated_in_the_admin(admin_client, host):
    game = paused_game(host)
    assert rated_row(game_page(admin_client, game)) == "no: fewer than two human players"


def test_the_api_says_a_started_game_of_one_human_against_bots_is_not_rated(host):
    game = start_game(host, "greedy", seed=5)
    assert game.rated  # created rated: the setting alone does not make it count
    assert host.get(f"/games/{game.pk}").json()["rated"] is False
    listed = host.get("/games").json()["results"]
    assert [g["rated"] for g in listed if g["id"] == str(game.pk)] == [False]


def test_a_finished_game_against_bots_is_shown_as_it_counted(admin_client, finished):
    assert rated_row(game_page(admin_client, finished)) == "no: fewer than two human players"


def test_a_game_of_two_humans_is_rated_and_a_waiting_one_may_still_be(admin_client, host, guest):
    two = start_game(host, guest, seed=5)
    assert rated_row(game_page(admin_client, two)) == "yes"
    assert guest.get(f"/games/{two.pk}").json()["rated"] is True
    waiting = seat_table(host, "greedy", max_players=3)
    assert rated_row(game_page(admin_client, waiting)) == "yes, if a second human player joins"
    assert host.get(f"/games/{waiting.pk}").json()["rated"] is True
    unrated = start_game(host, guest, seed=5, rated=False)
    assert rated_row(game_page(admin_client, unrated)) == "no: created unrated"
    assert host.get(f"/games/{unrated.pk}").json()["rated"] is False
