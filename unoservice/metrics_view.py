"""``GET /metrics``: the Prometheus scrape, for whoever holds ``METRICS_TOKEN``.

While the token is unset the page does not exist (404, as for any unknown path): a
deployment exposes its figures only when it chose a secret for them.
"""

from __future__ import annotations

import hmac

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.module_loading import import_string
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt

from unoservice import metrics
from unoservice.api_errors import json_answer
from unoservice.errors import MethodNotAllowed, NotAuthenticated, NotFound
from unoservice.queue_metrics import QueueCollector


@csrf_exempt
@never_cache
def metrics_page(request: HttpRequest) -> HttpResponse:
    token = str(settings.METRICS_TOKEN)
    if not token:
        return json_answer(NotFound("no such resource"))
    if request.method not in ("GET", "HEAD"):
        return json_answer(
            MethodNotAllowed(f"method {request.method} is not allowed"), Allow="GET, HEAD"
        )
    scheme, _, credentials = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(
        credentials.strip().encode(), token.encode()
    ):
        return json_answer(
            NotAuthenticated("the metrics need their bearer token"),
            **{"WWW-Authenticate": 'Bearer realm="metrics"'},
        )
    # The apps' own families (METRICS_SCRAPED_COLLECTORS), and the broker's queue.
    collectors = [import_string(path)() for path in settings.METRICS_SCRAPED_COLLECTORS]
    scraped = metrics.scrape(QueueCollector(), *collectors)
    return HttpResponse(scraped, content_type=metrics.CONTENT_TYPE)
