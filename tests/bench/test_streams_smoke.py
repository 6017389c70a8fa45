"""The live streams benchmark, briefly: the command as CI runs it, with a server and
database of its own (bench/serve.py), and the parts of it that need no server."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections import Counter

import pytest

from bench import chat, stream_storm, streams
from bench.serve import BASE_DIR
from tests.support import database_url_named

SMOKE_DATABASE = "uno_bench_streams_smoke"
STORM_DATABASE = "uno_bench_streams_storm"


@pytest.mark.postgres
@pytest.mark.slow
def test_the_streams_benchmark_opens_every_stream_and_delivers_every_move():
    command = [
        sys.executable,
        "-m",
        "bench.streams",
        "--spawn",
        "--streams",
        "20",
        "--long-polls",
        "20",
        "--poll-wait",
        "2",
        "--moves",
        "10",
        # The played phase again with table talk at the played game and the quiet one,
        # and once more without.
        "--chat",
        "--idle-seconds",
        "2",
        # The idle figures' exactness is the benchmark's, not the smoke test's.
        "--stats-flush-seconds",
        "0",
        "--json",
        "--database-url",
        database_url_named(SMOKE_DATABASE),
        # About 30 s alone (two spawned servers, streams then long polls); twice that
        # beside another test on two cores, and then some: a hang ends the run, which
        # prints where each of its tasks was.
        "--deadline",
        "300",
    ]
    done = subprocess.run(command, cwd=BASE_DIR, capture_output=True, text=True, timeout=400)

    assert done.returncode == 0, done.stderr[-12000:]
    result = json.loads(done.stdout)
    assert result["server"]["server"] == "uno"
    assert result["streams"] == result["streams_opened"] == result["still_open_at_end"] == 20
    assert result["errors"] == {}
    assert result["dropped"] == 0
    assert result["targets_met"]["all_open_none_dropped"] is True
    assert result["open_seconds"] > 0
    for played in (result, result["played_alone"]):
        assert played["moves"] == played["deliveries"] == 10
        assert played["delivery_missed"] == 0
        assert played["move_errors"] == {}
        assert 0 < played["move_p50_ms"] <= played["move_p99_ms"]
        assert 0 < played["delivery_p50_ms"] <= played["delivery_p99_ms"]
    assert isinstance(result["memory_kb_per_stream"], float)
    assert result["memory"]["before"]["rss_kb"] > 0
    assert result["memory"]["before"]["processes"] == 3  # the master and two workers
    assert result["db_tps_idle_baseline"] >= 0
    assert result["db_tps_idle_with_streams"] >= 0
    assert result["open_cpu_ms_per_stream"]["server"] > 0
    # The same load held open by long polls instead of streams.
    polls = result["long_polls"]
    assert polls["long_polls"] == polls["polls_waiting"] == 20
    assert polls["errors"] == {}
    assert polls["dropped"] == 0
    assert polls["targets_met"]["all_waiting_none_dropped"] is True
    assert polls["moves"] == polls["deliveries"] == 10
    assert polls["delivery_missed"] == 0
    with_chat = result["with_chat"]
    assert with_chat["moves"] == with_chat["deliveries"] == 10
    assert with_chat["delivery_missed"] == 0
    assert with_chat["move_errors"] == {}
    again = result["without_chat_again"]
    assert again["moves"] == again["deliveries"] == 10
    assert again["delivery_missed"] == 0
    talk = result["chat"]
    assert talk["ratios"]["delivery_p99_ms"] > 0
    assert talk["noise"]["delivery_p99_ms"] > 0
    assert talk["accepted"] > 0
    assert talk["sent"] == talk["accepted"] + talk["refused"]
    played_talk, quiet_talk = talk["played_game"], talk["quiet_games"]
    assert played_talk["accepted"] > 0
    assert played_talk["errors"] == quiet_talk["errors"] == {}
    # Every message a player said reached the other player's stream, once.
    assert played_talk["delivered"] == played_talk["accepted"]
    assert played_talk["lost"] == played_talk["duplicated"] == 0
    assert quiet_talk["senders"] == 1
    assert quiet_talk["received"] == quiet_talk["expected"]
    assert quiet_talk["duplicated"] == 0
    problems = result["server_log_problems"]["streams"]
    assert not [line for line in problems if "WARNING" not in line], problems


@pytest.mark.postgres
@pytest.mark.slow
def test_the_restart_storm_brings_every_stream_back_with_every_event_once():
    command = [
        sys.executable,
        "-m",
        "bench.streams",
        "--restart-storm",
        "--streams",
        "40",
        "--per-player",
        "4",
        "--play-seconds",
        "1",
        "--move-interval",
        "0.05",
        "--json",
        "--database-url",
        database_url_named(STORM_DATABASE),
    ]
    # About 15 s alone: one database, two servers on one port.
    done = subprocess.run(command, cwd=BASE_DIR, capture_output=True, text=True, timeout=240)

    result = json.loads(done.stdout)
    assert result["handover"] == "reuse-port"
    assert result["streams"] == result["back"] == 40
    assert result["events"] > 0
    assert result["missed"] == result["twice"] == result["out_of_order"] == 0
    assert result["targets_met"]["exact"] is True
    assert 0 <= result["first_answer_after_sigterm_s"] <= result["all_back_after_sigterm_s"]
    assert result["open_cpu_ms_per_stream"] > 0
    assert result["resume_cpu_ms_per_stream"] > 0
    assert 0 <= result["client_longest_stall_s"] <= result["client_stalled_s"]
    assert result["delivery_before_p99_ms"] is not None
    assert result["delivery_after_p99_ms"] is not None


def test_a_stream_that_lost_or_repeated_an_event_is_counted_so():
    game = stream_storm.Game("g", ["a", "b"], {}, last_seq=6)
    exact, gap, twice = (stream_storm.Watch(None, game, "a") for _ in range(3))  # type: ignore[arg-type]
    for watch, seqs in ((exact, [3, 4, 5, 6]), (gap, [3, 5, 6]), (twice, [3, 4, 4, 5, 6])):
        watch.first_view = 2
        watch.seqs = seqs
    assert stream_storm.exactness([game], [exact]) == {
        "events": 4,
        "missed": 0,
        "twice": 0,
        "out_of_order": 0,
    }
    assert stream_storm.exactness([game], [gap])["missed"] == 1
    counted = stream_storm.exactness([game], [twice])
    assert (counted["twice"], counted["out_of_order"]) == (1, 1)


def test_a_run_past_its_deadline_stops_and_says_where_each_task_was(capsys):
    async def hangs_in_a_task() -> None:
        await asyncio.gather(asyncio.sleep(3600), asyncio.sleep(0))

    with pytest.raises(streams.Overrun):
        streams.run_async(hangs_in_a_task(), time.monotonic() + 0.2)

    told = capsys.readouterr().err
    assert "went past its deadline" in told
    assert "hangs_in_a_task" in told


def test_a_run_within_its_deadline_gives_its_result():
    async def answers() -> int:
        await asyncio.sleep(0.01)
        return 42

    assert streams.run_async(answers(), time.monotonic() + 30) == 42


def test_server_sent_events_are_parsed_across_reads():
    parser = streams.SseParser()
    frames = parser.feed(b'retry: 2000\n\nid: 4\nevent: game\ndata: {"a"')
    assert [(f.event, f.id) for f in frames] == [(None, None)]
    frames = parser.feed(b": 1}\n\n: ping\n\nid: 5\nevent: card_played\ndata: {}\n\nevent: e")
    assert [(f.event, f.id, f.data) for f in frames] == [
        ("game", 4, '{"a": 1}'),
        ("comment", None, ""),
        ("card_played", 5, "{}"),
    ]
    assert parser.feed(b"nd\ndata: {}\n\n")[0].event == "end"


def test_a_table_talk_frame_reaches_the_stream_listener_and_is_no_game_event():
    timeline = streams.Timeline()
    stream = streams.Stream(None, "g", "t", streams.Tally(1), timeline)  # type: ignore[arg-type]
    ear = chat.Heard()
    stream.on_message = ear
    frames = streams.SseParser().feed(
        b'event: message\ndata: {"id": 7, "kind": "emote"}\n\n'
        b'event: message\ndata: {"id": 7, "kind": "emote"}\n\n'
        b"id: 12\nevent: card_played\ndata: {}\n\n"
    )
    for frame in frames:
        stream._frame(frame, 1.5, 1.0)
    assert set(ear.first) == {7}
    assert ear.repeats[7] == 1
    assert timeline.seqs == [12]
    assert not stream.opened.is_set()


def test_a_talker_keeps_to_the_windows_rate_and_out_of_their_last_moments():
    window = chat.WINDOW_SECONDS
    for offset in chat.offsets(7):
        pace = chat.Pace(offset)
        sent_at, now = [], 1_000_003.7
        if pace.room_now(now):
            sent_at.append(now)
            pace.sent(now)
        while len(sent_at) < 40:
            slot = pace.next_slot(now)
            sent_at.append(slot)
            pace.sent(slot)
            now = slot + 0.02  # the message's round trip
        per_window = Counter(int(at // window) for at in sent_at)
        assert max(per_window.values()) == chat.PER_WINDOW
        assert all(at % window <= window - chat.MARGIN for at in sent_at)
        assert sent_at == sorted(sent_at)


def test_the_played_seat_prefers_its_first_play_and_calls_uno():
    view = {
        "you": {
            "hand": [{"id": 1}, {"id": 2}],
            "legal_moves": [
                {"action": "draw"},
                {"action": "play", "card": 2},
                {"action": "play", "card": 1},
            ],
        }
    }
    assert streams.first_move(view) == {"action": "play", "card": 2, "uno": True}
    view["you"]["legal_moves"] = [{"action": "call_uno"}, {"action": "draw"}]
    assert streams.first_move(view) == {"action": "draw"}


def test_the_server_process_tree_is_this_process_and_its_children():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert set(streams.process_tree(os.getpid())) >= {os.getpid(), child.pid}
        memory = streams.tree_memory(os.getpid())
        assert memory["rss_kb"] > 0
        assert memory["processes"] >= 2
    finally:
        child.kill()
        child.wait()
