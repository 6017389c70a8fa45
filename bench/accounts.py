"""Whether an email address having an account shows in the time of an answer.

    python -m bench.accounts [--rounds 200] [--database-url postgres://...] [--json]

It recreates a local PostgreSQL database (default ``uno_bench_accounts``), migrates
it with the benchmark server's settings (bench/serve.py, the guessing limits lifted
too) and times requests through Django's WSGI handler in this process, each pair
asked about an address an account has and about one nobody has, in a shuffled
order every round so that the noise of a busy machine falls on both alike:

- ``code``: ``POST /players/email-codes`` (no token), a fresh address each time;
- ``wrong_code``: ``POST /players/sign-in`` with a wrong code for an address that
  has a live code (an account's, or one asked for by nobody's account);
- ``wrong_password``: ``POST /players/sign-in`` with a wrong password, for an
  address whose account has a password, and for an address nobody has.

Mail is handed to a broker in memory, as a request hands it to Redis: what the
worker then sends is not the request's time. It prints each kind's median for both
addresses and their ratio (known / unknown): near 1 when the time tells nothing.

Then each flow of docs/api.md ("Accounts"), `--rounds` times, its requests timed
one by one (medians, ms): a guest keeping its account (sign-up, a code, linking),
a new device signing in by a code, by a password, the export, and deleting the
account (with a game under way, whose seat a bot then takes).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections import defaultdict
from typing import Any

from bench.profile_move import django_for

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/uno_bench_accounts"
KINDS = ("code", "wrong_code", "wrong_password")
PASSWORD = "purple-otter-cards"
NO_LIMIT = "1000000000/min"


def prepare(rounds: int) -> None:
    """Accounts with a linked address and a password, one per round and kind."""
    from django.contrib.auth.hashers import make_password

    from players.accounts import email_codes
    from players.models import Identity, Player

    hashed = make_password(PASSWORD)
    for n in range(rounds):
        for kind in KINDS:
            player = Player.objects.create(name=f"P{n}", password=hashed)
            email = f"known-{kind}-{n}@example.com"
            Identity.objects.create(player=player, kind="email", subject=email, email=email)
            email_codes.code_issue(email=email)
            email_codes.code_issue(email=f"unknown-{kind}-{n}@example.com")


def body_of(kind: str, email: str) -> tuple[str, dict[str, Any]]:
    if kind == "code":
        return "/api/v1/players/email-codes", {"email": email}
    if kind == "wrong_code":
        return "/api/v1/players/sign-in", {"email": email, "code": "000000"}
    return "/api/v1/players/sign-in", {"email": email, "password": "not-the-password"}


def run(rounds: int, seed: int) -> dict[str, dict[str, list[float]]]:
    from django.test import Client

    client = Client(REMOTE_ADDR="192.0.2.10", HTTP_HOST="127.0.0.1")
    rng = random.Random(seed)
    times: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for n in range(rounds):
        asked = [(kind, who) for kind in KINDS for who in ("known", "unknown")]
        rng.shuffle(asked)
        for kind, who in asked:
            path, body = body_of(kind, f"{who}-{kind}-{n}@example.com")
            start = time.perf_counter()
            answer = client.post(path, json.dumps(body), content_type="application/json")
            elapsed = time.perf_counter() - start
            expected = 202 if kind == "code" else 403
            assert answer.status_code == expected, (kind, who, answer.content)
            times[kind][who].append(elapsed)
    return times


FLOW_STEPS = (
    "sign_up",
    "code_to_link",
    "link",
    "code_to_sign_in",
    "sign_in_by_code",
    "set_password",
    "sign_in_by_password",
    "export",
    "code_to_delete",
    "delete",
)


def flows(rounds: int, label: str) -> dict[str, float]:
    """The median time of each step of the flows, over `rounds` accounts."""
    from django.core.cache import cache
    from django.test import Client

    from games import services
    from players.accounts import email_codes
    from players.models import Player
    from players.services import player_create

    issued: list[str] = []
    real_issue = email_codes.code_issue

    def keep_code(*, email: str) -> str:
        issued.append(real_issue(email=email))
        return issued[-1]

    # The code as the person reads it from the mail.
    email_codes.code_issue = keep_code  # type: ignore[assignment]
    steps: dict[str, list[float]] = defaultdict(list)

    def timed(step: str, client: Any, method: str, path: str, body: Any, expected: int) -> Any:
        start = time.perf_counter()
        answer = getattr(client, method)(
            path, json.dumps(body) if body is not None else None, content_type="application/json"
        )
        steps[step].append(time.perf_counter() - start)
        assert answer.status_code == expected, (step, answer.content)
        return answer.json() if answer.content else None

    for n in range(rounds):
        email = f"{label}-flow-{n}@example.com"
        # The once-a-minute mail limit: in life these steps are minutes apart.
        cache.clear()
        phone = Client(REMOTE_ADDR="192.0.2.20", HTTP_HOST="127.0.0.1")
        made = timed("sign_up", phone, "post", "/api/v1/players", {"name": f"F{n}"}, 201)
        phone.defaults["HTTP_AUTHORIZATION"] = f"Bearer {made['token']}"
        # A game under way, whose seat deleting the account hands to a bot.
        player = Player.objects.get(pk=made["id"])
        opponent, _ = player_create(name="Opponent")
        game = services.game_create(host=player, max_players=2, target_score=0).game
        services.game_join(game_id=game.pk, player=opponent)
        services.game_start(game_id=game.pk, player=player)
        timed("code_to_link", phone, "post", "/api/v1/players/email-codes", {"email": email}, 202)
        body = {"email": email, "code": issued[-1]}
        timed("link", phone, "post", "/api/v1/players/me/identities", body, 201)
        laptop = Client(REMOTE_ADDR="192.0.2.21", HTTP_HOST="127.0.0.1")
        cache.clear()
        timed(
            "code_to_sign_in", laptop, "post", "/api/v1/players/email-codes", {"email": email}, 202
        )
        body = {"email": email, "code": issued[-1], "device": "laptop"}
        signed = timed("sign_in_by_code", laptop, "post", "/api/v1/players/sign-in", body, 200)
        laptop.defaults["HTTP_AUTHORIZATION"] = f"Bearer {signed['token']}"
        cache.clear()
        timed(
            "code_to_delete", laptop, "post", "/api/v1/players/email-codes", {"email": email}, 202
        )
        body = {"new_password": PASSWORD, "email": email, "code": issued[-1]}
        timed("set_password", laptop, "put", "/api/v1/players/me/password", body, 204)
        body = {"email": email, "password": PASSWORD}
        timed("sign_in_by_password", phone, "post", "/api/v1/players/sign-in", body, 200)
        timed("export", laptop, "get", "/api/v1/players/me/export", None, 200)
        body = {"email": email, "password": PASSWORD}
        timed("delete", laptop, "delete", "/api/v1/players/me", body, 204)
    email_codes.code_issue = real_issue  # type: ignore[assignment]
    return {step: round(statistics.median(steps[step]) * 1000, 3) for step in FLOW_STEPS}


def report(times: dict[str, dict[str, list[float]]]) -> dict[str, Any]:
    found = {}
    for kind in KINDS:
        known = statistics.median(times[kind]["known"]) * 1000
        unknown = statistics.median(times[kind]["unknown"]) * 1000
        found[kind] = {
            "known_ms": round(known, 3),
            "unknown_ms": round(unknown, 3),
            "ratio": round(known / unknown, 3),
            "requests": len(times[kind]["known"]) + len(times[kind]["unknown"]),
        }
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--database-url", default=DEFAULT_DATABASE_URL)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    os.environ.update(
        {
            "THROTTLE_RATE_EMAIL_CODE_ADDRESS": NO_LIMIT,
            "THROTTLE_RATE_SIGN_IN_EMAIL": NO_LIMIT,
            "THROTTLE_RATE_SIGN_IN_ADDRESS": NO_LIMIT,
            "CELERY_BROKER_URL": "memory://",
            "LOG_REQUESTS": "false",
        }
    )
    with django_for(args.database_url):
        total = args.warmup + args.rounds
        prepare(total)
        times = run(total, args.seed)
        for kind in KINDS:
            for who in ("known", "unknown"):
                del times[kind][who][: args.warmup]
        found = report(times)
        flows(args.warmup, "warmup")
        found["flows_ms"] = flows(args.rounds, "timed")
    if args.json:
        print(json.dumps(found))
    else:
        print(f"{'kind':16} {'known ms':>9} {'unknown ms':>11} {'ratio':>6}")
        for kind in KINDS:
            row = found[kind]
            print(f"{kind:16} {row['known_ms']:9.3f} {row['unknown_ms']:11.3f} {row['ratio']:6.3f}")
        print("\nflows (median ms per request):")
        for step, ms in found["flows_ms"].items():
            print(f"  {step:22} {ms:8.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
