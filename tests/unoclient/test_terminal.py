"""The terminal: keys typed before a prompt are dropped at a keyboard (and kept on a
pipe, where they are answers written in advance), lines are read one at a time
without blocking, and the countdown is redrawn in place only on a terminal."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator

import pytest

from unoclient import terminal
from unoclient.terminal import Terminal


class Pipe(io.TextIOWrapper):
    """The read end of a pipe that may pass for a terminal."""

    tty = False

    def isatty(self) -> bool:
        return self.tty


class Screen(io.StringIO):
    tty = False

    def isatty(self) -> bool:
        return self.tty


@pytest.fixture
def keys() -> Iterator[tuple[Pipe, int]]:
    read_end, write_end = os.pipe()
    reader = Pipe(io.FileIO(read_end, "r"))
    yield reader, write_end
    reader.close()
    os.close(write_end)


def at_a_keyboard(keys: tuple[Pipe, int], monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Make the pipe a keyboard whose flush drops what is waiting in it, as the
    terminal driver's does; returns the flushes."""
    reader, _ = keys
    reader.tty = True
    flushed: list[object] = []

    def tcflush(stream: object, queue: int) -> None:
        assert queue == terminal.termios.TCIFLUSH
        flushed.append(stream)
        os.set_blocking(reader.fileno(), False)
        try:
            while os.read(reader.fileno(), 4096):
                pass
        except BlockingIOError:
            pass
        finally:
            os.set_blocking(reader.fileno(), True)

    monkeypatch.setattr(terminal.termios, "tcflush", tcflush)
    return flushed


def test_keys_typed_before_a_prompt_are_discarded_at_a_keyboard(keys, monkeypatch):
    reader, writer = keys
    flushed = at_a_keyboard(keys, monkeypatch)
    term = Terminal(reader, Screen())
    os.write(writer, b"1\n")
    assert term.line(0.5) == "1"  # read by an earlier prompt, in the client's own buffer...
    os.write(writer, b"2\n3\n")
    assert term.line(0.5) == "2"  # ...and "3" with it
    os.write(writer, b"4\n")  # typed while nothing was asked
    term.prompt("Your move [1-2]: ")
    assert flushed == [reader]
    assert term.line(0.05) is None
    os.write(writer, b"5\n")
    assert term.line(0.5) == "5"


def test_a_failing_flush_does_not_stop_the_prompt(keys, monkeypatch):
    reader, writer = keys
    reader.tty = True

    def broken(stream: object, queue: int) -> None:
        raise terminal.termios.error(25, "Inappropriate ioctl for device")

    monkeypatch.setattr(terminal.termios, "tcflush", broken)
    term = Terminal(reader, Screen())
    term.prompt("Say UNO? [y/n] ")
    os.write(writer, b"y\n")
    assert term.line(0.5) == "y"


def test_answers_written_ahead_on_a_pipe_are_kept_and_read_one_line_at_a_time(keys, monkeypatch):
    reader, writer = keys
    monkeypatch.setattr(terminal.termios, "tcflush", pytest.fail)  # never at a pipe
    term = Terminal(reader, Screen())
    os.write(writer, b"n\nyes\r\n1")
    term.prompt("Challenge it? [y/n] ")
    assert term.line(0.5) == "n"
    term.prompt("Say UNO? [y/n] ")
    assert term.line(0.5) == "yes"
    assert term.line(0.05) is None  # "1" has no newline yet
    os.write(writer, b"\n")
    assert term.line(0.5) == "1"


def test_the_end_of_the_input_is_an_eof_error_after_its_last_line():
    read_end, write_end = os.pipe()
    with Pipe(io.FileIO(read_end, "r")) as reader:
        term = Terminal(reader, Screen())
        os.write(write_end, b"r")
        os.close(write_end)
        assert first_line(term) == "r"  # a last line without its newline
        with pytest.raises(EOFError):
            term.line(0.5)


def first_line(term: Terminal, polls: int = 10) -> str | None:
    for _ in range(polls):
        found = term.line(0.1)
        if found is not None:
            return found
    return None


def test_off_a_terminal_the_countdown_is_a_line_every_ten_seconds(keys):
    reader, _ = keys
    out = Screen()
    term = Terminal(reader, out)
    term.prompt("Your move [1-3]: ")
    for seconds in (31, 30, 30, 29, 21, 20, 11, 10, 9, 1, 0, -3):
        term.countdown(seconds)
    term.say("Bot 1 (greedy) played [R7]")
    term.settle(answered=False)
    assert "\r" not in out.getvalue()
    assert out.getvalue().splitlines() == [
        "Your move [1-3]: ",
        "(30 s left)",
        "(20 s left)",
        "(10 s left)",
        "Bot 1 (greedy) played [R7]",
    ]


def test_on_a_terminal_the_countdown_is_redrawn_in_place_and_lines_go_above_the_prompt(keys):
    reader, _ = keys
    out = Screen()
    out.tty = True
    term = Terminal(reader, out)
    term.prompt("Your move [1-3]: ")
    term.countdown(30)
    term.countdown(29)
    term.say("Bot 1 (greedy) said UNO!")
    term.settle(answered=False)
    assert out.getvalue() == (
        "\r\x1b[KYour move [1-3]: "
        "\r\x1b[K[ 30s] Your move [1-3]: "
        "\x1b7\r[ 29s] \x1b8"
        "\r\x1b[KBot 1 (greedy) said UNO!\n[ 29s] Your move [1-3]: "
        "\r\x1b[K"
    )


def test_a_turn_of_days_counts_down_in_days_hours_and_minutes_until_the_last_seconds(keys):
    reader, _ = keys
    out = Screen()
    out.tty = True
    term = Terminal(reader, out)
    term.prompt("Your move [1-3]: ")
    term.countdown(3 * 86400)
    term.countdown(3 * 86400 - 1)
    term.countdown(5400)
    term.countdown(999)
    term.settle(answered=True)
    assert out.getvalue() == (
        "\r\x1b[KYour move [1-3]: "
        "\r\x1b[K[3d00h] Your move [1-3]: "
        "\x1b7\r[2d23h] \x1b8"
        "\x1b7\r[1h30m] \x1b8"
        "\r\x1b[K[999s] Your move [1-3]: "
    )


def test_off_a_terminal_a_turn_of_days_is_a_line_every_hour_then_every_ten_seconds(keys):
    reader, _ = keys
    out = Screen()
    term = Terminal(reader, out)
    term.prompt("Your move [1-3]: ")
    for seconds in (259200, 259199, 259190, 255600, 3601, 3600, 1000, 999, 990):
        term.countdown(seconds)
    assert out.getvalue().splitlines() == [
        "Your move [1-3]: ",
        "(72 h left)",
        "(71 h left)",
        "(1 h left)",
        "(990 s left)",
    ]
