"""The HTTP API as the client uses it: JSON over urllib, nothing else."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid
from typing import Any

API_PREFIX = "/api/v1"


class ApiError(Exception):
    """An answer in the API's error shape (or no answer at all: status 0)."""

    def __init__(self, status: int, code: str, message: str, details: dict[str, Any]) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details


class Api:
    def __init__(self, server: str, *, timeout: float = 40.0) -> None:
        self.base = server.rstrip("/") + API_PREFIX
        self.token: str | None = None
        self.timeout = timeout

    def request(self, method: str, path: str, body: Any = None) -> Any:
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if method == "POST":
            # A retried POST (a dropped connection) must not act twice.
            headers["Idempotency-Key"] = str(uuid.uuid4())
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        req = urllib.request.Request(self.base + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as answer:
                return json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as error:
            raise _api_error(error.code, error.read()) from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as error:
            raise ApiError(0, "unreachable", str(error), {}) from None

    def get(self, path: str) -> Any:
        return self.request("GET", path)

    def post(self, path: str, body: Any = None) -> Any:
        return self.request("POST", path, {} if body is None else body)


def _api_error(status: int, raw: bytes) -> ApiError:
    try:
        error = json.loads(raw)["error"]
        return ApiError(status, error["code"], error["message"], error.get("details") or {})
    except (ValueError, KeyError, TypeError):
        return ApiError(status, "unexpected", raw[:200].decode(errors="replace"), {})
