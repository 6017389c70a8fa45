"""The streams signed in with their tokens (`games.live.sessions`): a revocation ends
those with the tokens it names and no other, even when it was heard before they
signed in, and the catch-up ends those its read shows stale, never one newer than
the read."""

from __future__ import annotations

import asyncio
import time
import uuid
from types import SimpleNamespace
from typing import Any, cast

from games.live.sessions import Sessions
from players.models import Player


def player(token_hash: str, player_id: str = "") -> Player:
    session = SimpleNamespace(token_hash=token_hash)
    return cast(Player, SimpleNamespace(pk=player_id or str(uuid.uuid4()), session=session))


def run(test: Any) -> None:
    async def main() -> None:
        test(Sessions())

    asyncio.run(main())


def test_signing_one_device_out_ends_its_streams_and_keeps_the_other_devices() -> None:
    def check(sessions: Sessions) -> None:
        phone, tablet = player("phone", "p"), player("tablet", "p")
        with sessions.signed_in(phone) as on_phone, sessions.signed_in(tablet) as on_tablet:
            assert on_phone is not None
            assert on_tablet is not None
            sessions.revoke("p", frozenset({"phone"}))
            assert on_phone.ended.done()
            assert not on_tablet.ended.done()
        assert not sessions

    run(check)


def test_disabling_ends_every_session_of_the_player_and_nobody_elses() -> None:
    def check(sessions: Sessions) -> None:
        with (
            sessions.signed_in(player("a", "p")) as mine,
            sessions.signed_in(player("a2", "p")) as mine_too,
            sessions.signed_in(player("b", "q")) as theirs,
        ):
            sessions.revoke("p", frozenset({"a", "a2"}))
            assert mine is not None
            assert mine.ended.done()
            assert mine_too is not None
            assert mine_too.ended.done()
            assert theirs is not None
            assert not theirs.ended.done()

    run(check)


def test_a_stream_that_signs_in_after_its_revocation_was_heard_ends_at_once() -> None:
    def check(sessions: Sessions) -> None:
        sessions.revoke("p", frozenset({"old"}))
        sessions.revoke("p", frozenset({"older"}))
        for revoked in ("old", "older"):
            with sessions.signed_in(player(revoked, "p")) as late:
                assert late is not None
                assert late.ended.done()
        with sessions.signed_in(player("new", "p")) as fresh:
            assert fresh is not None
            assert not fresh.ended.done()

    run(check)


def test_the_catch_up_ends_stale_sessions_but_not_those_newer_than_its_read() -> None:
    def check(sessions: Sessions) -> None:
        with (
            sessions.signed_in(player("old", "p")) as stale,
            sessions.signed_in(player("kept", "p")) as kept,
        ):
            began = time.monotonic()
            with sessions.signed_in(player("newer", "p")) as newer:
                assert sorted(sessions.token_hashes()) == ["kept", "newer", "old"]
                sessions.stale({"kept"}, began)
                assert stale is not None
                assert stale.ended.done()
                assert kept is not None
                assert not kept.ended.done()
                assert newer is not None
                assert not newer.ended.done()

    run(check)


def test_a_staff_sessions_stream_signs_nothing_in() -> None:
    def check(sessions: Sessions) -> None:
        with sessions.signed_in(None) as nothing:
            assert nothing is None
            assert not sessions

    run(check)
