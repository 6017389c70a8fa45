"""The player's screen and keyboard: lines of what happens, and prompts that keep
the game going while they wait.

Input is polled (`select`) a line at a time, so that the play loop can show the
other players' moves and a countdown while the player thinks; this works in a
terminal and on a pipe alike. On a terminal a prompt stays on the last line, its
countdown redrawn in place; on anything else (a pipe, a test) every prompt and
countdown is a line of its own, so that the output reads as a log.
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
from typing import IO, Protocol

try:
    import termios
except ImportError:  # not on this platform: nothing to flush with
    termios = None  # type: ignore[assignment]

ERASE_LINE = "\r\x1b[K"
# Save and restore the cursor: the countdown is rewritten at the start of the
# prompt line without moving what the player has typed after it.
SAVE_CURSOR, RESTORE_CURSOR = "\x1b7", "\x1b8"
# Off a terminal the countdown is a line every this many seconds, and every hour
# while more than `LONG_TURN` seconds are left (a turn may last days).
COUNTDOWN_LINES_EVERY = 10
LONG_TURN = 1000


class Screen(Protocol):
    """What the play loop needs of a terminal (tests give a scripted one)."""

    def say(self, line: str) -> None: ...

    def prompt(self, question: str) -> None: ...

    def countdown(self, seconds: int | None) -> None: ...

    def line(self, timeout: float) -> str | None: ...

    def settle(self, answered: bool) -> None: ...


class Terminal:
    """`Screen` on real file objects (standard input and output by default)."""

    def __init__(self, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> None:
        self.stdin = stdin if stdin is not None else sys.stdin
        self.stdout = stdout if stdout is not None else sys.stdout
        self.keys_tty = _isatty(self.stdin)
        self.screen_tty = _isatty(self.stdout)
        self._typed = b""
        self._ended = False
        self._question: str | None = None  # the prompt on screen (a terminal's last line)
        self._seconds: int | None = None

    # -- output ---------------------------------------------------------------------------

    def _write(self, text: str) -> None:
        self.stdout.write(text)
        self.stdout.flush()

    def say(self, line: str) -> None:
        if self.screen_tty and self._question is not None:
            self._write(f"{ERASE_LINE}{line}\n{self._prompt_line()}")
        else:
            self._write(f"{line}\n")

    def prompt(self, question: str) -> None:
        """Show `question`, dropping whatever was typed before it could be read."""
        self.discard()
        self._question, self._seconds = question, None
        if self.screen_tty:
            self._write(f"{ERASE_LINE}{self._prompt_line()}")
        else:
            self._write(f"{question}\n")

    def countdown(self, seconds: int | None) -> None:
        """The seconds left to answer the prompt on screen (None: no deadline)."""
        seconds = None if seconds is None else max(seconds, 0)
        if seconds == self._seconds or self._question is None:
            return
        before, self._seconds = self._seconds, seconds
        if self.screen_tty:
            if before is None or seconds is None or len(_clock(before)) != len(_clock(seconds)):
                self._write(f"{ERASE_LINE}{self._prompt_line()}")  # the prompt's width changes
            else:
                self._write(f"{SAVE_CURSOR}\r{_clock(seconds)}{RESTORE_CURSOR}")
        elif seconds is not None and seconds > 0:
            if seconds < LONG_TURN and seconds % COUNTDOWN_LINES_EVERY == 0:
                self._write(f"({seconds} s left)\n")
            elif seconds >= LONG_TURN and seconds % 3600 == 0:
                self._write(f"({seconds // 3600} h left)\n")

    def settle(self, answered: bool) -> None:
        """The prompt is answered or given up: it is no longer the last line."""
        # After Enter the cursor is on a fresh line already; a prompt given up is
        # still there and is wiped.
        if self.screen_tty and self._question is not None and not answered:
            self._write(ERASE_LINE)
        self._question = self._seconds = None

    def _prompt_line(self) -> str:
        clock = "" if self._seconds is None else _clock(self._seconds)
        return f"{clock}{self._question or ''}"

    # -- input ----------------------------------------------------------------------------

    def discard(self) -> None:
        """Forget keys typed ahead. Only at a keyboard: a pipe's lines are answers
        written in advance on purpose."""
        if not self.keys_tty:
            return
        self._typed = b""
        if termios is not None:
            with contextlib.suppress(termios.error, OSError, ValueError):
                termios.tcflush(self.stdin, termios.TCIFLUSH)

    def line(self, timeout: float) -> str | None:
        """A line typed within `timeout` s, without its newline; None if none came.
        Raises EOFError once the input has ended."""
        found = self._take_line()
        if found is not None:
            return found
        if self._ended:
            raise EOFError
        ready, _, _ = select.select([self.stdin], [], [], timeout)
        if not ready:
            return None
        # Read the descriptor itself: a buffered readline would swallow the lines
        # after the first, which select would then never report.
        chunk = os.read(self.stdin.fileno(), 4096)
        if not chunk:
            self._ended = True
            if self._typed:  # a last line without its newline
                self._typed += b"\n"
        self._typed += chunk
        found = self._take_line()
        if found is None and self._ended:
            raise EOFError
        return found

    def _take_line(self) -> str | None:
        raw, newline, rest = self._typed.partition(b"\n")
        if not newline:
            return None
        self._typed = rest
        return raw.decode("utf-8", errors="replace").rstrip("\r")


def _clock(seconds: int) -> str:
    """The time left as the prompt shows it: seconds, then hours and minutes, then
    days and hours."""
    if seconds < LONG_TURN:
        return f"[{seconds:>3}s] "
    minutes = seconds // 60
    if minutes < 24 * 60:
        return f"[{minutes // 60}h{minutes % 60:02d}m] "
    hours = minutes // 60
    return f"[{hours // 24}d{hours % 24:02d}h] "


def _isatty(stream: IO[str]) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False
