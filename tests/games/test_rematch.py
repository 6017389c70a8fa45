"""Playing again: ``POST /games/{id}/rematch`` (docs/api.md, Rematch). The first
player of a game that is over to ask creates the next game with the same settings
and hosts it; the others who ask join that same game."""

from __future__ import annotations

from io import BytesIO
from typing import Any

import pytest
from django.utils import timezone

from games import replay, services
from games.models import Event, Game, Seat, seating_entry
from players.models import player_tag
from tests.factories import (
    Persona,
    assert_error,
    footprint,
    make_persona,
    play_out,
    reload,
    seat_table,
    stamp_game,
    start_game,
)
from unoclient import sse

pytestmark = pytest.mark.django_db

RULES = {
    "stacking": True,
    "seven_o": False,
    "jump_in": True,
    "draw_until_playable": False,
    "force_play": False,
}


def over(*seats: Persona | str, status: str = "finished", **fields: Any) -> Game:
    """A game that was played and is over (a row written directly): the personas and
    bots at `seats` in order, the first persona hosting."""
    holders = [s.player if isinstance(s, Persona) else s for s in seats]
    host = next(h for h in holders if not isinstance(h, str))
    fields.setdefault("started_at", timezone.now())
    return stamp_game(host=host, seats=holders, status=status, **fields)


def rematch(persona: Persona, game: Game | str, **headers: str) -> Any:
    game_id = game.pk if isinstance(game, Game) else game
    return persona.post(f"/games/{game_id}/rematch", **headers)


def seated(view: dict[str, Any]) -> list[tuple[str | None, str | None]]:
    """(player name, bot) of each seat of a view."""
    return [(s["player"] and s["player"]["name"], s["bot"]) for s in view["seats"]]


def hand_to_bot(game: Game, player: Persona, *, timed_out: bool) -> None:
    """Give `player`'s seat to a greedy bot, as leaving (or three timeouts) does."""
    seat = Seat.objects.get(game=game, player=player.player)
    seat.bot, seat.timed_out = "greedy", timed_out
    seat.save()
    seating = list(game.seating)
    seating[seat.seat] = seating_entry(player.player, "greedy")
    Game.objects.filter(pk=game.pk).update(seating=seating)


# -- the first to ask creates it ---------------------------------------------------------


def test_the_first_player_to_ask_creates_the_rematch_with_the_same_settings_and_hosts_it(
    host, guest
):
    third = make_persona("Third")
    game = start_game(
        host, guest, third, "random", seed=5, max_players=5, turn_timeout=30, rules=RULES
    )
    services.game_leave(game_id=game.pk, player=third.player)  # a greedy bot takes seat 2
    finished = play_out(game, {0: host, 1: guest})
    assert finished.status == "finished"

    response = rematch(guest, finished)

    assert response.status_code == 201, response.json()
    view = response.json()
    new = Game.objects.get(pk=view["id"])
    assert view["status"] == "waiting"
    assert view["host"] == {
        "id": str(guest.player.pk),
        "name": "Guest",
        "tag": player_tag(guest.player.pk),
    }
    assert {k: v for k, v in view["you"].items() if k not in ("client_seed", "partner_hand")} == {
        "seat": 0,
        "hand": [],
        "legal_moves": [],
    }
    # The bot the game was created with comes back; the one that took Third's seat
    # does not: that seat is Third's to take, were they not gone.
    assert seated(view) == [("Guest", None), (None, "random")]
    assert (view["max_players"], view["target_score"], view["turn_timeout"]) == (5, 0, 30)
    assert view["rules"] == RULES
    assert new.seed != finished.seed
    assert [(e.type, e.seat) for e in Event.objects.filter(game=new)] == [
        ("player_joined", 0),
        ("bot_added", 1),
    ]


def test_the_game_that_is_over_shows_its_rematch_to_everyone_and_logs_who_offered_it(
    host, guest, outsider
):
    game = over(host, guest, "expert")
    before = reload(game)
    assert host.get(f"/games/{game.pk}").json()["rematch"] is None

    new_id = rematch(host, game).json()["id"]

    for reader in (host, guest, outsider):
        assert reader.get(f"/games/{game.pk}").json()["rematch"] == new_id
    after = reload(game)
    assert str(after.rematch_id) == new_id
    assert after.version == before.version + 1
    assert after.status == "finished"
    (offered,) = guest.get(f"/games/{game.pk}/events").json()["events"]
    assert offered["seq"] == after.last_seq == before.last_seq + 1
    assert offered["type"] == "rematch_offered"
    assert offered["seat"] == 0
    assert offered["data"] == {
        "game": new_id,
        "by": {"id": str(host.player.pk), "name": "Host"},
    }
    # The new game itself offers nothing until it is over.
    assert host.get(f"/games/{new_id}").json()["rematch"] is None


def test_a_game_played_to_its_end_and_rematched_still_replays_exactly(host, guest):
    finished = play_out(start_game(host, guest, seed=8), {0: host, 1: guest})
    assert rematch(host, finished).status_code == 201
    replay.verify(reload(finished))


# -- the others join it ------------------------------------------------------------------


def test_a_second_player_asking_joins_the_same_rematch(host, guest):
    game = over(host, guest, "greedy")
    first = rematch(host, game).json()

    response = rematch(guest, game)

    assert response.status_code == 201, response.json()
    view = response.json()
    assert view["id"] == first["id"]
    assert view["host"]["name"] == "Host"
    assert seated(view) == [("Host", None), (None, "greedy"), ("Guest", None)]
    assert view["you"]["seat"] == 2
    assert Game.objects.filter(rematch_of=game).count() == 1
    offers = Event.objects.filter(game=game, type="rematch_offered")
    assert offers.count() == 1, "only the game's creation is offered"


def test_asking_again_once_in_the_rematch_answers_its_view_and_changes_nothing(host, guest):
    game = over(host, guest)
    new_id = rematch(host, game).json()["id"]
    rematch(guest, game)
    before = (footprint(game.pk), footprint(new_id))

    for persona in (host, guest):
        response = rematch(persona, game)
        assert response.status_code == 201, response.json()
        assert response.json() == persona.get(f"/games/{new_id}").json()

    assert (footprint(game.pk), footprint(new_id)) == before


def test_once_the_rematch_started_a_player_not_yet_in_it_gets_409_wrong_phase(host, guest):
    game = over(host, guest, "random")
    new_id = rematch(host, game).json()["id"]
    assert host.post(f"/games/{new_id}/start").status_code == 200
    before = footprint(new_id)

    assert_error(rematch(guest, game), 409, "wrong_phase")
    assert footprint(new_id) == before
    # Those who sit in it still get its view.
    assert rematch(host, game).json()["status"] == "playing"


def test_a_full_rematch_is_a_409_game_full(host, guest, outsider):
    game = over(host, guest, max_players=2)
    new_id = rematch(host, game).json()["id"]
    assert outsider.post(f"/games/{new_id}/join").status_code == 200  # anyone may join it
    before = footprint(new_id)

    assert_error(rematch(guest, game), 409, "game_full")
    assert footprint(new_id) == before


# -- who may ask, and when -------------------------------------------------------------


def test_an_abandoned_game_that_had_started_may_be_rematched(host, guest):
    game = start_game(host, guest, seed=3)
    services.game_abandon(game_id=game.pk, reason="closed by an operator")

    response = rematch(guest, game)

    assert response.status_code == 201, response.json()
    assert seated(response.json()) == [("Guest", None)]


def test_a_game_abandoned_before_its_start_is_a_409_wrong_phase(host, guest):
    game = seat_table(host, guest)
    services.game_abandon(game_id=game.pk, reason="closed by an operator")
    before = footprint(game.pk)

    assert_error(rematch(host, game), 409, "wrong_phase")
    assert footprint(game.pk) == before
    assert reload(game).rematch_id is None


@pytest.mark.parametrize("status", ["waiting", "playing"])
def test_asking_for_a_rematch_before_the_game_is_over_is_a_409_wrong_phase(host, guest, status):
    game = over(host, guest, status=status)
    before = footprint(game.pk)
    games = Game.objects.count()

    assert_error(rematch(guest, game), 409, "wrong_phase")
    assert footprint(game.pk) == before
    assert Game.objects.count() == games


def test_someone_who_was_not_a_player_gets_403_and_nothing_changes(host, guest, outsider):
    game = over(host, guest)
    before = footprint(game.pk)
    games = Game.objects.count()

    assert_error(rematch(outsider, game), 403, "forbidden")
    assert footprint(game.pk) == before
    assert Game.objects.count() == games


def test_a_player_who_left_the_game_cannot_ask_for_its_rematch(host, guest):
    game = over(host, guest)
    hand_to_bot(game, guest, timed_out=False)

    assert_error(rematch(guest, game), 403, "forbidden")
    assert reload(game).rematch_id is None


def test_a_player_whose_seat_went_to_a_bot_after_timeouts_may_ask(host, guest):
    game = over(host, guest, "expert")
    hand_to_bot(game, host, timed_out=True)

    response = rematch(host, game)

    assert response.status_code == 201, response.json()
    assert seated(response.json()) == [("Host", None), (None, "expert")]


@pytest.mark.parametrize(
    "game_id", ["00000000-0000-0000-0000-000000000000", "not-a-uuid", "123", "x" * 300]
)
def test_asking_for_the_rematch_of_an_unknown_or_malformed_game_is_a_404(host, game_id):
    assert_error(rematch(host, game_id), 404, "not_found")


def test_asking_for_a_rematch_needs_a_token(host, guest, anonymous):
    game = over(host, guest)
    assert_error(anonymous.post(f"/api/v1/games/{game.pk}/rematch"), 401, "not_authenticated")


def test_the_open_game_cap_applies_to_creating_the_rematch(host, guest):
    game = over(host, guest)
    for _ in range(services.MAX_OPEN_GAMES):
        seat_table(guest, "random", max_players=3)
    before = footprint(game.pk)
    games = Game.objects.count()

    error = assert_error(rematch(guest, game), 409, "too_many_games")
    assert error["details"] == {"limit": services.MAX_OPEN_GAMES}
    assert footprint(game.pk) == before
    assert Game.objects.count() == games


def test_the_open_game_cap_applies_to_joining_the_rematch(host, guest):
    game = over(host, guest)
    new_id = rematch(host, game).json()["id"]
    for _ in range(services.MAX_OPEN_GAMES):
        seat_table(guest, "random", max_players=3)

    assert_error(rematch(guest, game), 409, "too_many_games")
    assert [s["player"]["name"] for s in host.get(f"/games/{new_id}").json()["seats"]] == ["Host"]


def test_a_rematch_request_sent_twice_with_one_idempotency_key_acts_once(host, guest):
    game = over(host, guest)
    first = rematch(guest, game, **{"Idempotency-Key": "again-1"})
    second = rematch(guest, game, **{"Idempotency-Key": "again-1"})

    assert (first.status_code, second.status_code) == (201, 201)
    assert second["Idempotent-Replayed"] == "true"
    assert second.json() == first.json()
    assert Game.objects.filter(rematch_of=game).count() == 1
    assert Event.objects.filter(game=game, type="rematch_offered").count() == 1


# -- watchers of the game that is over ---------------------------------------------------


def test_a_long_poll_after_the_end_hears_of_the_rematch(host, guest, outsider):
    game = over(host, guest)
    last_seq = reload(game).last_seq
    new_id = rematch(guest, game).json()["id"]

    page = outsider.get(f"/games/{game.pk}/events", after=last_seq, wait=1).json()

    assert [(e["type"], e["data"]["game"]) for e in page["events"]] == [("rematch_offered", new_id)]


def test_a_stream_reopened_after_the_end_gets_the_rematch_then_the_view_and_end(host, guest):
    game = play_out(start_game(host, guest, seed=8), {0: host, 1: guest})
    ended_at = game.last_seq
    new_id = rematch(host, game).json()["id"]

    response = guest.client.get(f"/api/v1/games/{game.pk}/stream", HTTP_LAST_EVENT_ID=str(ended_at))

    messages = [m for m in sse.messages(BytesIO(response.content)) if m.event != "message"]  # type: ignore[arg-type]
    assert [m.event for m in messages] == ["rematch_offered", "game", "end"]
    assert messages[0].json()["data"]["game"] == new_id
    assert messages[1].json()["rematch"] == new_id
    assert messages[2].json()["last_seq"] == ended_at + 1


def test_a_private_games_rematch_is_private_with_a_code_of_its_own(host, guest, outsider):
    game = over(host, guest, visibility="private", invite_code="ABCDEFGH", rated=False)
    created = rematch(host, game)
    assert created.status_code == 201, created.json()
    view = created.json()
    assert (view["visibility"], view["rated"]) == ("private", False)
    assert view["invite_code"] not in (None, "ABCDEFGH")
    assert outsider.get(f"/games/{view['id']}").status_code == 404
