"""Top-level URLs: the web client (/play/, and / leading there), the admin, the health
check, the metrics and the v1 API with its schema (and, only with the BENCH_FLOOR
setting on, the load benchmark's floor view)."""

from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from games import urls as game_urls
from unoservice.api_docs import RedocDocsView, SwaggerDocsView
from unoservice.health import HealthView
from unoservice.metrics_view import metrics_page
from unoservice.play import play_page, root, service_worker

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", HealthView.as_view(), name="healthz"),
    path("metrics", metrics_page, name="metrics"),
    # The games' routes first: a move's request is resolved in a few steps.
    path("api/v1/", include("games.urls")),
    path("api/v1/", include("players.urls")),
    path("api/v1/", include(game_urls.player_urlpatterns)),
    path("api/v1/", include("players.social.urls")),
    path("api/v1/", include("games.social.urls")),
    path("api/v1/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/v1/docs/", SwaggerDocsView.as_view(url_name="schema"), name="docs"),
    path("api/v1/redoc/", RedocDocsView.as_view(url_name="schema"), name="redoc"),
    # The web client: one page for all of its own paths (/play/games/<id>, ...).
    path("play/", play_page, name="play"),
    # Before the page's catch-all: served here, its scope is /play/ (unoservice.play).
    path("play/sw.js", service_worker, name="play-sw"),
    path("play/<path:route>", play_page, name="play-route"),
    path("", root, name="root"),
]

if settings.BENCH_FLOOR:  # the load benchmark's floor; production never mounts it
    from bench.floor import floor

    urlpatterns.append(path("bench/floor", floor, name="bench-floor"))

handler400 = "unoservice.api_errors.handler400"
handler403 = "unoservice.api_errors.handler403"
handler404 = "unoservice.api_errors.handler404"
handler500 = "unoservice.api_errors.handler500"
