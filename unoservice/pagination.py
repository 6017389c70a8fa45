"""The API's page numbers: ASCII digits, 'last' or nothing, as the schema says."""

from __future__ import annotations

from typing import Any

from django.core.paginator import Paginator
from rest_framework.exceptions import NotFound
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request


class StrictPageNumberPagination(PageNumberPagination):
    """A page number that is not ASCII digits is no such page (404): Django's
    paginator reads it with int(), which would take "٣", " 3", "+3" or "1_0"."""

    def get_page_number(self, request: Request, paginator: Paginator[Any]) -> Any:
        raw = request.query_params.get(self.page_query_param)
        if raw and raw not in self.last_page_strings and not (raw.isascii() and raw.isdigit()):
            raise NotFound(self.invalid_page_message)
        return super().get_page_number(request, paginator)
