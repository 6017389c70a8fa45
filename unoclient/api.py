"""The HTTP API as the client uses it: JSON over urllib, nothing else."""

from __future__ import annotations

import http.client
import json
import time
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
    """Requests that survive a flaky network: a request whose connection fails is
    sent again (up to `retries` times, backing off), a POST with the same
    Idempotency-Key, so that the server acts on it once however often it arrives."""

    def __init__(
        self, server: str, *, timeout: float = 40.0, retries: int = 4, backoff: float = 0.5
    ) -> None:
        self.base = server.rstrip("/") + API_PREFIX
        self.token: str | None = None
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff

    def request(self, method: str, path: str, body: Any = None) -> Any:
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if method == "POST":
            headers["Idempotency-Key"] = str(uuid.uuid4())
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        for attempt in range(self.retries + 1):
            try:
                return self._send(method, path, data, headers)
            except ApiError as error:
                retry = error.status == 0 or error.code == "service_unavailable"
                if not retry or attempt == self.retries:
                    raise
                time.sleep(self.backoff * 2**attempt)
        raise AssertionError("unreachable")  # the loop returns or raises

    def _send(self, method: str, path: str, data: bytes | None, headers: dict[str, str]) -> Any:
        req = urllib.request.Request(self.base + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as answer:
                return json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as error:
            raise _api_error(error.code, error.read()) from None
        except (
            urllib.error.URLError,
            TimeoutError,
            ConnectionError,
            http.client.HTTPException,
        ) as error:
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
