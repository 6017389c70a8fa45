"""The streams signed in with their tokens (`games.live.sessions`): a revocation ends
those with any other token, even when it was heard before they signed in, and the
catch-up ends those its read shows stale, never one newer than the read."""

from __future__ import annotations

import asyncio
import time
import uuid
from types import SimpleNamespace
from typing import Any, cast

from games.live.sessions import Sessions
from players.models import Player


def player(token_hash: str, player_id: str = "") -> Player:
    return cast(Player, SimpleNamespace(pk=player_id or str(uuid.uuid4()), token_hash=token_hash))


def run(test: Any) -> None:
    async def main() -> None:
        test(Sessions())

    asyncio.run(main())


def test_a_revocation_ends_the_sessions_of_other_tokens_and_keeps_the_new_ones() -> None:
    def check(sessions: Sessions) -> None:
        old, new = player("old", "p"), player("new", "p")
        with sessions.signed_in(old) as before, sessions.signed_in(new) as after:
            assert before is not None
            assert after is not None
            sessions.revoke("p", "new")
            assert before.ended.done()
            assert not after.ended.done()
        assert not sessions

    run(check)


def test_disabling_ends_every_session_of_the_player_and_nobody_elses() -> None:
    def check(sessions: Sessions) -> None:
        with (
            sessions.signed_in(player("a", "p")) as mine,
            sessions.signed_in(player("b", "q")) as theirs,
        ):
            sessions.revoke("p", None)
            assert mine is not None
            assert mine.ended.done()
            assert theirs is not None
            assert not theirs.ended.done()

    run(check)


def test_a_stream_that_signs_in_after_its_revocation_was_heard_ends_at_once() -> None:
    def check(sessions: Sessions) -> None:
        sessions.revoke("p", "new")
        with sessions.signed_in(player("old", "p")) as late:
            assert late is not None
            assert late.ended.done()
        with sessions.signed_in(player("new", "p")) as fresh:
            assert fresh is not None
            assert not fresh.ended.done()

    run(check)


def test_the_catch_up_ends_stale_sessions_but_not_those_newer_than_its_read() -> None:
    def check(sessions: Sessions) -> None:
        with sessions.signed_in(player("old", "p")) as stale:
            began = time.monotonic()
            with sessions.signed_in(player("newer", "p")) as newer:
                sessions.stale({"p": "read"}, began)
                assert stale is not None
                assert stale.ended.done()
                assert newer is not None
                assert not newer.ended.done()

    run(check)


def test_a_staff_sessions_stream_signs_nothing_in() -> None:
    def check(sessions: Sessions) -> None:
        with sessions.signed_in(None) as nothing:
            assert nothing is None
            assert not sessions

    run(check)
