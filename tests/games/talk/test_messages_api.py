"""Table talk (docs/api.md, "Table talk"): the catalogue, who may say what at a
table, masking, the rate, and reading a table's messages as each reader may."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine

from games.talk import wire
from games.talk.catalogue import EMOTES, PHRASES
from games.talk.models import TableMessage
from players.social.models import Block, TalkMute
from tests.factories import (
    API,
    TableMessageFactory,
    assert_error,
    make_persona,
    reload,
    seat_table,
    stamp_game,
)

pytestmark = pytest.mark.django_db


def say(persona, game, **body):
    return persona.post(f"/games/{game.pk}/messages", body)


def read(persona, game, **params):
    answer = persona.get(f"/games/{game.pk}/messages", **params)
    assert answer.status_code == 200, answer.content
    return answer.json()["messages"]


# -- the catalogue -----------------------------------------------------------------


def test_the_catalogue_lists_every_phrase_and_emote_without_a_token(anonymous):
    answer = anonymous.get(f"{API}/talk/catalogue")
    assert answer.status_code == 200
    body = answer.json()
    assert body["phrases"] == [{"code": k, "text": v} for k, v in PHRASES.items()]
    assert body["emotes"] == [{"code": k, "text": v} for k, v in EMOTES.items()]


# -- saying something ----------------------------------------------------------------


def test_a_seated_player_says_a_phrase_and_gets_the_message_as_readers_see_it(host, table):
    answer = say(host, table, phrase="good_luck")
    assert answer.status_code == 201, answer.content
    message = answer.json()
    assert message["kind"] == "phrase"
    assert message["code"] == "good_luck"
    assert message["text"] == "Good luck!"
    assert message["seat"] == 0
    assert message["spectator"] is False
    assert message["from"]["id"] == str(host.player.pk)
    assert message["from"]["name"] == "Host"
    assert len(message["from"]["tag"]) == 4
    assert TableMessage.objects.get(pk=message["id"]).text == "Good luck!"


def test_a_message_is_announced_to_the_live_layer_with_its_game(host, table, monkeypatch):
    told = []
    monkeypatch.setattr(wire, "announce", lambda game_id, message: told.append((game_id, message)))
    message = say(host, table, emote="fire").json()
    assert told == [(table.pk, message)]


def test_a_message_changes_neither_the_version_nor_the_log_of_its_game(host, guest, table):
    before = reload(table)
    assert say(host, table, phrase="hello").status_code == 201
    assert say(guest, table, emote="smile").status_code == 201
    after = reload(table)
    assert (after.version, after.last_seq, after.state) == (
        before.version,
        before.last_seq,
        before.state,
    )


def test_a_move_made_with_the_version_read_before_a_message_is_accepted(host, guest, table):
    version = host.get(f"/games/{table.pk}").json()["version"]
    assert say(guest, table, phrase="your_turn").status_code == 201
    assert host.move(table.pk, version, action="draw").status_code == 200


def test_a_spectator_sends_emotes_only(outsider, table):
    assert say(outsider, table, emote="clap").json()["spectator"] is True
    assert say(outsider, table, emote="clap").json()["seat"] is None
    error = assert_error(say(outsider, table, phrase="hello"), 403, "forbidden")
    assert "emotes only" in error["message"]
    assert_error(say(outsider, table, text="hi"), 403, "forbidden")


def test_free_text_is_refused_where_the_table_takes_phrases_only(host, table):
    assert_error(say(host, table, text="hello there"), 403, "free_text_off")
    assert not TableMessage.objects.exists()


def test_free_text_is_said_trimmed_where_the_table_allows_it(host, chatty):
    message = say(host, chatty, text="  nice one  ").json()
    assert (message["kind"], message["code"], message["text"]) == ("text", "", "nice one")


def test_a_profane_word_is_masked_for_every_reader_and_kept_as_typed_for_staff(
    host, guest, outsider, chatty
):
    message = say(host, chatty, text="what a shit hand").json()
    assert message["text"] == "what a *** hand"
    stored = TableMessage.objects.get(pk=message["id"])
    assert stored.text == "what a *** hand"
    assert stored.typed == "what a shit hand"
    for reader in (host, guest, outsider):
        assert [m["text"] for m in read(reader, chatty)] == ["what a *** hand"]


def test_the_mask_and_the_words_follow_the_settings(host, chatty, settings):
    settings.TALK_MASK = "#"
    settings.TALK_PROFANITY_EXTRA_WORDS = ["zork"]
    settings.TALK_PROFANITY_ALLOWED_WORDS = ["shit"]
    assert say(host, chatty, text="zork this shit").json()["text"] == "# this shit"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"phrase": "nonsense"}, "phrase"),
        ({"emote": "unicorn"}, "emote"),
        ({"text": ""}, "text"),
        ({"text": "   "}, "text"),
        ({"text": "x" * 201}, "text"),
        ({"text": "line\nbreak"}, "text"),
        ({"text": "a\x00b"}, "text"),
        ({"text": "bell\x07"}, "text"),
        ({"text": 12}, "text"),
        ({"phrase": ["hello"]}, "phrase"),
        ({"emote": {"a": 1}}, "emote"),
        ({"phrase": None}, "phrase"),
        ({"shout": "hi"}, "shout"),
    ],
)
def test_a_malformed_message_is_400_naming_the_field(host, chatty, body, field):
    error = assert_error(say(host, chatty, **body), 400, "invalid_request")
    assert field in error["details"]["fields"]
    assert not TableMessage.objects.exists()


@pytest.mark.parametrize(
    "body",
    [{}, {"phrase": "hello", "emote": "fire"}, {"phrase": "hello", "text": "hi"}, [], "hi", 3],
)
def test_anything_but_exactly_one_of_phrase_emote_or_text_is_400(host, chatty, body):
    answer = host.client.post(f"{API}/games/{chatty.pk}/messages", body, format="json")
    assert_error(answer, 400, "invalid_request")


def test_two_hundred_characters_of_text_are_taken(host, chatty):
    assert say(host, chatty, text="é" * 200).status_code == 201


def test_a_player_muted_by_staff_is_refused_until_when_and_why(host, table):
    until = dt.datetime.now(dt.UTC) + dt.timedelta(hours=1)
    host.player.talk_muted_until = until
    host.player.talk_muted_reason = "reported for abuse"
    host.player.save()
    error = assert_error(say(host, table, phrase="hello"), 403, "talk_muted")
    assert dt.datetime.fromisoformat(error["details"]["until"]) == until
    assert error["details"]["reason"] == "reported for abuse"


def test_a_mute_that_ended_lets_the_player_talk_again(host, table):
    host.player.talk_muted_until = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)
    host.player.save()
    assert say(host, table, phrase="hello").status_code == 201


def test_waiting_and_finished_tables_take_messages_and_an_abandoned_one_does_not(host):
    waiting = seat_table(host)
    assert say(host, waiting, phrase="hello").status_code == 201
    finished = stamp_game(host=host.player, status="finished")
    assert say(host, finished, phrase="good_game").status_code == 201
    abandoned = stamp_game(host=host.player, status="abandoned")
    assert_error(say(host, abandoned, phrase="bye"), 409, "wrong_phase")


def test_an_unknown_or_malformed_game_is_404(host):
    assert_error(host.post("/games/not-a-game/messages", {"emote": "fire"}), 404, "not_found")
    unknown = "/games/6f1c2b7e-0d3a-4c59-9b1e-2a7d5c3e8f10/messages"
    assert_error(host.post(unknown, {"emote": "fire"}), 404, "not_found")
    assert_error(host.get(unknown), 404, "not_found")


def test_a_private_game_is_404_to_an_outsider_without_its_code_and_open_with_it(
    host, guest, outsider
):
    private = seat_table(host, guest, visibility="private")
    assert_error(say(outsider, private, emote="fire"), 404, "not_found")
    assert_error(outsider.get(f"/games/{private.pk}/messages"), 404, "not_found")
    assert_error(say(outsider, private, text=None), 404, "not_found")  # before the body
    with_code = f"/games/{private.pk}/messages?code={private.invite_code}"
    assert outsider.post(with_code, {"emote": "fire"}).status_code == 201
    assert len(outsider.get(with_code).json()["messages"]) == 1


def test_a_message_needs_a_token(anonymous, table):
    answer = anonymous.post(f"{API}/games/{table.pk}/messages", {"emote": "fire"}, format="json")
    assert_error(answer, 401, "not_authenticated")


# -- the rate ------------------------------------------------------------------------


def window_start(seconds: int) -> dt.datetime:
    """A second into the next window of `seconds` (windows are fixed, from the epoch):
    a test that stays there counts in one window. Soon, so that tokens stay fresh."""
    now = dt.datetime.now(dt.UTC).timestamp()
    return dt.datetime.fromtimestamp((now // seconds + 1) * seconds + 1, dt.UTC)


def test_the_sixth_message_in_a_window_is_429_and_a_new_window_allows_again(host, guest, table):
    start = window_start(10)
    with time_machine.travel(start, tick=False):
        for _ in range(5):
            assert say(host, table, emote="fire").status_code == 201
        refused = say(host, table, emote="fire")
        error = assert_error(refused, 429, "rate_limited")
        assert 1 <= int(refused["Retry-After"]) <= 10
        assert error["details"]["retry_after"] == int(refused["Retry-After"])
        # Per player and table: the guest still talks.
        assert say(guest, table, emote="fire").status_code == 201
    with time_machine.travel(start + dt.timedelta(seconds=10), tick=False):
        assert say(host, table, emote="fire").status_code == 201
    assert TableMessage.objects.filter(sender=host.player).count() == 6


def test_the_rate_follows_the_settings(host, table, settings):
    settings.TALK_MESSAGES_PER_WINDOW = 2
    settings.TALK_WINDOW_SECONDS = 60
    with time_machine.travel(window_start(60), tick=False):
        assert say(host, table, emote="fire").status_code == 201
        assert say(host, table, emote="fire").status_code == 201
        refused = assert_error(say(host, table, emote="fire"), 429, "rate_limited")
        assert refused["details"]["retry_after"] == 59


def test_a_refused_message_is_not_counted(host, table):
    with time_machine.travel(window_start(10), tick=False):
        for _ in range(5):
            assert_error(say(host, table, text="hi"), 403, "free_text_off")
        for _ in range(5):
            assert say(host, table, emote="fire").status_code == 201


# -- reading -------------------------------------------------------------------------


def test_a_read_gives_the_last_fifty_oldest_first_and_after_gives_the_newer(host, table):
    said = [TableMessageFactory(game=table, sender=host.player, text=f"m{n}").pk for n in range(60)]
    page = read(host, table)
    assert [m["id"] for m in page] == said[10:]
    assert [m["id"] for m in read(host, table, after=said[54])] == said[55:]
    assert read(host, table, after=said[-1]) == []


@pytest.mark.parametrize("after", ["x", "-1", "1.5", " 1"])
def test_a_malformed_after_is_400(host, table, after):
    assert_error(host.get(f"/games/{table.pk}/messages", after=after), 400, "invalid_request")


def test_a_reader_does_not_read_whom_they_block_or_who_blocks_them_or_whom_they_mute(
    host, guest, outsider, table
):
    fourth = make_persona("Fourth")
    for speaker in (host, guest, outsider, fourth):
        TableMessageFactory(game=table, sender=speaker.player, seat=None, kind="emote")
    Block.objects.create(blocker=host.player, blocked=guest.player)
    Block.objects.create(blocker=outsider.player, blocked=host.player)
    TalkMute.objects.create(player=host.player, muted=fourth.player)
    names = [m["from"]["name"] for m in read(host, table)]
    assert names == ["Host"]
    # The guest is blocked, not blocking: they still read the host.
    # The host blocks the guest: neither reads the other.
    assert [m["from"]["name"] for m in read(guest, table)] == ["Guest", "Outsider", "Fourth"]


def test_a_reader_who_hides_spectators_emotes_does_not_read_them(host, outsider, table):
    assert say(outsider, table, emote="wow").status_code == 201
    assert say(host, table, phrase="hello").status_code == 201
    host.player.hide_spectator_emotes = True
    host.player.save()
    assert [m["code"] for m in read(host, table)] == ["hello"]
    assert [m["code"] for m in read(outsider, table)] == ["wow", "hello"]


def test_the_filtered_page_is_still_full(host, guest, table):
    Block.objects.create(blocker=host.player, blocked=guest.player)
    mine = [TableMessageFactory(game=table, sender=host.player).pk for _ in range(50)]
    for _ in range(30):
        TableMessageFactory(game=table, sender=guest.player, seat=1)
    assert [m["id"] for m in read(host, table)] == mine
