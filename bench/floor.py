"""``POST /bench/floor``: the database floor the load benchmark compares moves with.

Mounted only when the BENCH_FLOOR setting is on (env ``BENCH_FLOOR=true``).

What it does, the core database work of one ``POST /games/{id}/moves``:

1. authenticate the ``Authorization: Bearer <token>`` header with the very lookup a
   move uses (``players.auth.BearerTokenAuthentication``: one indexed query);
2. in one transaction: lock one row (``SELECT ... FOR UPDATE`` on the caller's
   `BenchRow`, as a move locks its Game), update it (bump its counter, as a move
   bumps `version`), and insert one row (a `BenchLog`, as a move appends an Event);
3. answer a small JSON object.

What it does not do, and a move does: DRF's request wrapping, content negotiation
and JSON parser, the rate-limit check (a cache read and write), body validation, the
seats query, decoding the engine snapshot, the rules engine, encoding the snapshot
(the UPDATE here writes a counter, not a JSON document of a few kB), player stats
at the end of a game, and rendering the caller's game view and events. The gap
between the two is what the service adds on top of the database round trips.

The caller's row is created on its first request (``get_or_create``); the load
benchmark makes one warm-up request per client before it starts the clock.
"""

from __future__ import annotations

from django.db import transaction
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST
from rest_framework.exceptions import AuthenticationFailed

from bench.models import BenchLog, BenchRow
from players.auth import BearerTokenAuthentication

_auth = BearerTokenAuthentication()


def _unauthorized(message: str) -> JsonResponse:
    error = {"code": "not_authenticated", "message": message, "details": {}}
    return JsonResponse({"error": error}, status=401)


@csrf_exempt
@require_POST
def floor(request: HttpRequest) -> JsonResponse:
    try:
        found = _auth.authenticate(request)  # type: ignore[arg-type]
    except AuthenticationFailed as error:
        return _unauthorized(str(error.detail))
    if found is None:
        return _unauthorized("authentication with a player token is required")
    player = found[0]
    with transaction.atomic():
        row, _ = BenchRow.objects.select_for_update().get_or_create(owner=player.pk)
        row.counter += 1
        row.save(update_fields=["counter", "updated_at"])
        BenchLog.objects.create(
            row=row, seq=row.counter, data={"player": str(player.pk)}, at=timezone.now()
        )
    return JsonResponse({"counter": row.counter})
