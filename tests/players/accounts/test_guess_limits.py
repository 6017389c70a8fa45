"""Wrong codes for one email address, sent at once from many networks, are counted
exactly: the address's limit lets as many be judged as its rate, no more, and the
code itself dies after five wrong tries."""

from __future__ import annotations

import threading

import pytest
from django.core.cache import cache
from django.db import connection

from players.accounts import email_codes
from players.accounts.proofs import Proof, prove
from players.models import EmailCode, Identity
from tests.factories import PlayerFactory
from unoservice.errors import CredentialsRefused, RateLimited

ANN = "ann@example.com"
AT_ONCE = 200
# The configured rate of wrong codes and passwords per email address (settings).
PER_EMAIL = 10


def guess_at_once(code: str) -> list[str]:
    """`AT_ONCE` guesses of `code` for ANN, each from a network of its own, released
    together; what each was answered."""
    barrier = threading.Barrier(AT_ONCE)
    answers: list[str] = []
    lock = threading.Lock()

    def guess(number: int) -> None:
        barrier.wait(timeout=60)
        try:
            prove(
                Proof(email=ANN, code=code),
                meta={"REMOTE_ADDR": f"198.51.{100 + number // 250}.{number % 250 + 1}"},
            )
            answer = "right"
        except CredentialsRefused:
            answer = "wrong"
        except RateLimited:
            answer = "limited"
        finally:
            connection.close()
        with lock:
            answers.append(answer)

    threads = [threading.Thread(target=guess, args=(n,)) for n in range(AT_ONCE)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return answers


@pytest.mark.django_db(transaction=True)
def test_wrong_codes_at_once_from_many_networks_are_judged_exactly_to_the_rate():
    Identity.objects.create(player=PlayerFactory(), kind="email", subject=ANN, email=ANN)
    cache.clear()
    right = email_codes.code_issue(email=ANN)
    wrong = f"{(int(right) + 1) % 1_000_000:06d}"

    answers = guess_at_once(wrong)

    assert len(answers) == AT_ONCE
    assert answers.count("wrong") == PER_EMAIL
    assert answers.count("limited") == AT_ONCE - PER_EMAIL
    # The code took five wrong tries and is dead; the right one is refused now too,
    # by the limit first.
    assert EmailCode.objects.get(email=ANN).tries == email_codes.MAX_TRIES
    with pytest.raises(RateLimited):
        prove(Proof(email=ANN, code=right), meta={"REMOTE_ADDR": "192.0.2.99"})
    cache.clear()
    with pytest.raises(CredentialsRefused):
        prove(Proof(email=ANN, code=right), meta={"REMOTE_ADDR": "192.0.2.99"})
