"""A local fake of Firebase Cloud Messaging's HTTP v1 API and of Google's OAuth token
endpoint, for the tests.

It makes a service account (an RSA key of its own) and writes its JSON key file,
whose `token_uri` points here. ``POST /token`` checks the service account's signed
assertion (RS256, with the account's public key: issuer, audience, scope, expiry)
and hands out an access token; ``POST /v1/projects/<project>/messages:send``
checks ``Authorization: Bearer <that token>`` and records the message. It can be
told to answer the next sends otherwise: `unregistered()` is FCM's 404
UNREGISTERED.

Use the `fcm_service` fixture: it configures FCM_CREDENTIALS_FILE and FCM_ENDPOINT,
and PUSH_ALLOW_HTTP, which lets push requests reach it on loopback.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from tests.push_service import Answer, LocalServer, configure_push, unb64url

PROJECT = "uno-push-tests"
CLIENT_EMAIL = f"push@{PROJECT}.iam.gserviceaccount.com"
SCOPE = "https://www.googleapis.com/auth/firebase.messaging"
GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"
# The audience of a service account's assertion is Google's token endpoint, wherever
# the key file's token_uri sends it.
AUDIENCE = "https://oauth2.googleapis.com/token"


@dataclass
class FcmRequest:
    """One messages:send the fake received."""

    project: str
    at: float
    body: dict[str, Any]
    status: int

    @property
    def message(self) -> dict[str, Any]:
        return self.body["message"]  # type: ignore[no-any-return]

    @property
    def payload(self) -> dict[str, Any]:
        """The notification's JSON, from the one data value that carries it."""
        return json.loads(self.message["data"]["uno"])  # type: ignore[no-any-return]


class FcmService(LocalServer):
    def __init__(self) -> None:
        super().__init__()
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.tokens: set[str] = set()
        self.token_requests = 0
        self.sends: list[FcmRequest] = []
        self.refusals: list[str] = []

    @property
    def endpoint(self) -> str:
        return f"{self.origin}/v1/projects/{{project_id}}/messages:send"

    def credentials_file(self, folder: Path) -> Path:
        """Write the service account's JSON key file into `folder`."""
        pem = self.key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode()
        info = {
            "type": "service_account",
            "project_id": PROJECT,
            "private_key_id": "test-key",
            "private_key": pem,
            "client_email": CLIENT_EMAIL,
            "client_id": "1",
            "token_uri": f"{self.origin}/token",
        }
        path = folder / "fcm-service-account.json"
        path.write_text(json.dumps(info))
        return path

    def unregistered(self, times: int = 1) -> None:
        """Answer the next sends as FCM does for a token no app holds any more."""
        self.answer_next(404, times, body=error_body(404, "NOT_FOUND", "UNREGISTERED"))

    def handle(self, path: str, headers: dict[str, str], body: bytes) -> Answer:
        headers = {name.lower(): value for name, value in headers.items()}
        if path == "/token":
            return self._token(body)
        return self._send(path, headers, body)

    def _token(self, body: bytes) -> Answer:
        form = {k: v[0] for k, v in parse_qs(body.decode()).items()}
        problem = self._assertion_problem(form)
        if problem:
            with self.lock:
                self.refusals.append(problem)
            return (
                400,
                {},
                json.dumps({"error": "invalid_grant", "error_description": problem}).encode(),
            )
        token = secrets.token_urlsafe(24)
        with self.lock:
            self.tokens.add(token)
            self.token_requests += 1
        answer = {"access_token": token, "expires_in": 3600, "token_type": "Bearer"}
        return 200, {"Content-Type": "application/json"}, json.dumps(answer).encode()

    def _assertion_problem(self, form: dict[str, str]) -> str:
        if form.get("grant_type") != GRANT:
            return f"grant_type {form.get('grant_type')!r}"
        try:
            header_b64, claims_b64, signature_b64 = form["assertion"].split(".")
            self.key.public_key().verify(
                unb64url(signature_b64),
                f"{header_b64}.{claims_b64}".encode(),
                padding.PKCS1v15(),
                hashes.SHA256(),
            )
        except (KeyError, ValueError, InvalidSignature) as error:
            return f"bad assertion: {type(error).__name__}"
        if json.loads(unb64url(header_b64)).get("alg") != "RS256":
            return "alg is not RS256"
        claims = json.loads(unb64url(claims_b64))
        if claims.get("iss") != CLIENT_EMAIL:
            return f"iss {claims.get('iss')!r}"
        if claims.get("aud") != AUDIENCE:
            return f"aud {claims.get('aud')!r}"
        if SCOPE not in str(claims.get("scope", "")).split():
            return f"scope {claims.get('scope')!r}"
        if not claims.get("exp", 0) > time.time():
            return "expired"
        return ""

    def _send(self, path: str, headers: dict[str, str], body: bytes) -> Answer:
        parts = path.strip("/").split("/")
        if len(parts) != 4 or parts[:2] != ["v1", "projects"] or parts[3] != "messages:send":
            return 404, {}, b""
        scheme, _, token = headers.get("authorization", "").partition(" ")
        with self.lock:
            known = scheme == "Bearer" and token in self.tokens
        if not known:
            return 401, {}, json.dumps(error_body(401, "UNAUTHENTICATED", "")).encode()
        record = FcmRequest(parts[2], time.time(), json.loads(body), 200)
        answer = self.scripted()
        if answer is not None:
            record.status = answer.status
        with self.lock:
            self.sends.append(record)
            self.lock.notify_all()
        if answer is not None:
            return (
                answer.status,
                {"Content-Type": "application/json", **answer.headers},
                answer.body,
            )
        name = f"projects/{parts[2]}/messages/{secrets.token_hex(6)}"
        return 200, {"Content-Type": "application/json"}, json.dumps({"name": name}).encode()

    def received(self) -> list[FcmRequest]:
        with self.lock:
            return list(self.sends)


def error_body(code: int, status: str, error_code: str, **extra: Any) -> dict[str, Any]:
    """An FCM v1 error answer's body."""
    details: list[dict[str, Any]] = []
    if error_code:
        details.append(
            {
                "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
                "errorCode": error_code,
            }
        )
    if extra:
        details.append({"@type": "type.googleapis.com/google.rpc.BadRequest", **extra})
    return {
        "error": {"code": code, "message": status.lower(), "status": status, "details": details}
    }


@pytest.fixture
def fcm_service(
    monkeypatch: pytest.MonkeyPatch, settings: Any, tmp_path: Path
) -> Iterator[FcmService]:
    """A running fake of FCM and its token endpoint; the service sends to it."""
    service = FcmService()
    service.start()
    configure_push(
        monkeypatch,
        settings,
        FCM_CREDENTIALS_FILE=str(service.credentials_file(tmp_path)),
        FCM_ENDPOINT=service.endpoint,
        # The fake listens on loopback, which push requests reach only so.
        PUSH_ALLOW_HTTP=True,
    )
    yield service
    service.stop()
