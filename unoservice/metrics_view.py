"""``GET /metrics``: the Prometheus scrape, for whoever holds ``METRICS_TOKEN``.

While the token is unset the page does not exist (404, as for any unknown path): a
deployment exposes its figures only when it chose a secret for them.
"""

from __future__ import annotations

import hmac

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt

from games.metrics import GamesCollector
from unoservice import metrics
from unoservice.api_errors import error_body


@csrf_exempt
@never_cache
def metrics_page(request: HttpRequest) -> HttpResponse:
    token = str(settings.METRICS_TOKEN)
    if not token:
        return JsonResponse(error_body("not_found", "no such resource"), status=404)
    if request.method not in ("GET", "HEAD"):
        answer = JsonResponse(
            error_body("method_not_allowed", f"method {request.method} is not allowed"),
            status=405,
        )
        answer["Allow"] = "GET, HEAD"
        return answer
    scheme, _, credentials = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(
        credentials.strip().encode(), token.encode()
    ):
        answer = JsonResponse(
            error_body("not_authenticated", "the metrics need their bearer token"), status=401
        )
        answer["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return answer
    return HttpResponse(metrics.scrape(GamesCollector()), content_type=metrics.CONTENT_TYPE)
