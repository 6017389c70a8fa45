"""The API's docs pages (Swagger UI and ReDoc), served with everything they load.

Their scripts and styles are the service's own static files (drf-spectacular's
sidecar), and a Content-Security-Policy (`unoservice.security`) lets the pages load
nothing from anywhere else (ReDoc's bundle would fetch a logo from its CDN, and
Swagger UI asks an outside validator for a badge, on every visit) and run no inline
script: the templates in games/templates/api_docs start them without one.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerView

from unoservice import security


class _SameOriginOnly:
    def finalize_response(self, request: Any, response: Any, *args: Any, **kwargs: Any) -> Any:
        # A mixin: `super()` is the view it is mixed into, which mypy cannot see here.
        response = super().finalize_response(request, response, *args, **kwargs)  # type: ignore[misc]
        if isinstance(response, HttpResponse):
            response[security.HEADER] = security.DOCS_POLICY
        return response


class SwaggerDocsView(_SameOriginOnly, SpectacularSwaggerView):
    template_name = "api_docs/swagger_ui.html"


class RedocDocsView(_SameOriginOnly, SpectacularRedocView):
    template_name = "api_docs/redoc.html"
