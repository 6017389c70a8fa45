"""Guessing invite codes against the production server: wrong codes sent together by
one player, by many fresh accounts from one address, and from an address with no
account at all (docs/api.md, Private games and invite codes, "Guessing"). Every
wrong code is counted before it is judged, per player and per address, so that
requests arriving together cannot slip past either limit: exactly the limit's number
of them are answered 404, the rest 429."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import pytest

from tests.served import (
    INVITE_CODE_ADDRESS_RATE,
    INVITE_CODE_RATE,
    Answer,
    Client,
    Served,
    together,
)
from unoservice import codes

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

GUESSES_AT_ONCE = 120
STREAMS_AT_ONCE = 30


def wrong_code() -> str:
    """A code of the right shape that no open game holds (the odds of one that does
    are the number of open games in 31**8)."""
    return codes.new_code()


def join_by_code(player: Client) -> Callable[[], Answer]:
    return lambda: player.post("/games/join", {"code": wrong_code()})


def watch_with_code(player: Client, game_id: str) -> Callable[[], Answer]:
    return lambda: player.get(f"/games/{game_id}?code={wrong_code()}")


def stream_with_code(player: Client, game_id: str) -> Callable[[], Answer]:
    return lambda: player.get(f"/games/{game_id}/stream?code={wrong_code()}")


def read_invitation(reader: Client) -> Callable[[], Answer]:
    return lambda: reader.get(f"/games/join?code={wrong_code()}")


GUESSES = {"join": lambda player, _: join_by_code(player), "watch": watch_with_code}
GUESSES["stream"] = stream_with_code
GUESSES["invitation"] = lambda player, _: read_invitation(player)


def assert_refused_for_guessing(answer: Answer) -> None:
    assert answer.status == 429, answer.body
    assert answer.body["error"]["code"] == "rate_limited"
    wait = int(answer.headers["retry-after"])
    assert wait >= 1
    assert answer.body["error"]["details"]["retry_after"] == wait


def private_game_of(served: Served) -> str:
    host = served.client().sign_up("Host")
    answer = host.post("/games", {"visibility": "private"})
    assert answer.status == 201, answer.body
    return str(answer.body["id"])


@pytest.mark.parametrize("how", sorted(GUESSES))
def test_wrong_codes_sent_together_by_one_player_get_exactly_the_limit_of_404s(served, how):
    game_id = private_game_of(served)
    guesser = served.client().sign_up("Guesser")
    guess = GUESSES[how](guesser, game_id)
    # A player opens at most 32 streams at once (MAX_STREAMS_PER_PLAYER): past it a
    # stream is refused too_many_streams before any code is judged.
    at_once = STREAMS_AT_ONCE if how == "stream" else GUESSES_AT_ONCE

    answers = together([guess] * at_once)

    assert Counter(a.status for a in answers) == {
        404: INVITE_CODE_RATE,
        429: at_once - INVITE_CODE_RATE,
    }
    for answer in answers:
        if answer.status == 429:
            assert_refused_for_guessing(answer)
        else:
            assert answer.body["error"]["code"] == "not_found"


def test_fresh_accounts_from_one_address_share_the_addresss_limit_of_wrong_codes(served):
    address = served.client()
    accounts = INVITE_CODE_ADDRESS_RATE // INVITE_CODE_RATE + 2
    guessers = [address.sign_up(f"Guesser {n}") for n in range(accounts)]
    calls = [join_by_code(guesser) for guesser in guessers for _ in range(INVITE_CODE_RATE)]

    answers = together(calls)

    assert Counter(a.status for a in answers) == {
        404: INVITE_CODE_ADDRESS_RATE,
        429: len(calls) - INVITE_CODE_ADDRESS_RATE,
    }
    for answer in answers:
        if answer.status == 429:
            assert_refused_for_guessing(answer)
    # A new account from the same address is refused from its first guess on ...
    latecomer = address.sign_up("Latecomer")
    assert_refused_for_guessing(latecomer.post("/games/join", {"code": wrong_code()}))
    # ... while a player elsewhere is not held back by that address.
    elsewhere = served.client().sign_up("Elsewhere")
    assert elsewhere.post("/games/join", {"code": wrong_code()}).status == 404


def test_guesses_without_an_account_are_held_to_the_address_s_limit(served):
    nobody = served.client()  # no token: the invite link's page before signing up
    calls = [read_invitation(nobody)] * (INVITE_CODE_ADDRESS_RATE + 20)

    answers = together(calls)

    assert Counter(a.status for a in answers) == {404: INVITE_CODE_ADDRESS_RATE, 429: 20}
    for answer in answers:
        if answer.status == 429:
            assert_refused_for_guessing(answer)


def test_once_an_address_is_refused_even_the_right_code_is_refused_from_it(served):
    host = served.client().sign_up("Host")
    game = host.post("/games", {"visibility": "private"}).body
    address = served.client()
    for n in range(INVITE_CODE_ADDRESS_RATE // INVITE_CODE_RATE):
        guesser = address.sign_up(f"Guesser {n}")
        for _ in range(INVITE_CODE_RATE):
            assert guesser.post("/games/join", {"code": wrong_code()}).status == 404

    friend = address.sign_up("Friend")
    assert_refused_for_guessing(friend.post("/games/join", {"code": game["invite_code"]}))
    assert_refused_for_guessing(friend.get(f"/games/{game['id']}?code={game['invite_code']}"))
