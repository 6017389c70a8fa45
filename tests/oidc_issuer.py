"""A real OpenID issuer on this machine for the tests of Google and Apple sign-in:
its own keys, its JWKS served over HTTP from a thread, its fetches counted. The
`issuer` fixture points Google's settings at it."""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from django.core.cache import cache

from players import id_tokens

ISSUER = "https://issuer.example"
CLIENT_ID = "app.example"
PrivateKey = rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def new_rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def jwk(kid: str, key: PrivateKey) -> dict[str, Any]:
    public = key.public_key()
    if isinstance(public, rsa.RSAPublicKey):
        found = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(public))
        found["alg"] = "RS256"
    else:
        found = json.loads(jwt.algorithms.ECAlgorithm.to_jwk(public))
        found["alg"] = "ES256"
    return {**found, "kid": kid, "use": "sig"}


@dataclass
class Issuer:
    """An OpenID issuer on 127.0.0.1: the keys it publishes at /keys and how it answers."""

    url: str = ""
    keys: dict[str, PrivateKey] = field(default_factory=dict)
    fetches: int = 0
    elsewhere_fetches: int = 0
    status: int = 200
    body: bytes | None = None  # served instead of the JWKS
    cache_control: str | None = "public, max-age=3600"
    redirect: bool = False
    delay: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.kid = "key-1"
        self.keys[self.kid] = new_rsa_key()

    def rotate(self) -> str:
        """Publish a new key, and only it, under a new kid; tokens are signed with it."""
        self.kid = f"key-{len(self.keys) + 1}"
        self.keys = {self.kid: new_rsa_key()}
        return self.kid

    def jwks(self) -> bytes:
        return json.dumps({"keys": [jwk(kid, key) for kid, key in self.keys.items()]}).encode()

    def claims(self, **changes: Any) -> dict[str, Any]:
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": ISSUER,
            "aud": CLIENT_ID,
            "sub": "001234.subject",
            "iat": now,
            "exp": now + 600,
            "email": "ann@example.com",
            "email_verified": True,
        }
        claims.update(changes)
        return {name: value for name, value in claims.items() if value is not None}

    def token(
        self,
        *,
        kid: str | None = None,
        key: PrivateKey | None = None,
        algorithm: str = "RS256",
        **changes: Any,
    ) -> str:
        kid = kid or self.kid
        key = key or self.keys[kid]
        return jwt.encode(self.claims(**changes), key, algorithm=algorithm, headers={"kid": kid})

    def count(self) -> None:
        with self.lock:
            self.fetches += 1


def serve(issuer: Issuer) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path == "/elsewhere":
                issuer.elsewhere_fetches += 1
                self.answer(200, issuer.jwks())
                return
            if self.path != "/keys":
                self.answer(404, b"{}")
                return
            issuer.count()
            time.sleep(issuer.delay)
            if issuer.redirect:
                self.send_response(302)
                self.send_header("Location", f"{issuer.url.rsplit('/', 1)[0]}/elsewhere")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.answer(issuer.status, issuer.body if issuer.body is not None else issuer.jwks())

        def answer(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            if issuer.cache_control is not None:
                self.send_header("Cache-Control", issuer.cache_control)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    return server


@pytest.fixture
def issuer(settings: Any) -> Iterator[Issuer]:
    issuer = Issuer()
    server = serve(issuer)
    issuer.url = f"http://127.0.0.1:{server.server_address[1]}/keys"
    settings.ID_TOKEN_PROVIDERS = {
        **settings.ID_TOKEN_PROVIDERS,
        "google": {
            **settings.ID_TOKEN_PROVIDERS["google"],
            "issuers": [ISSUER],
            "jwks_url": issuer.url,
            "client_ids": [CLIENT_ID],
        },
    }
    settings.ID_TOKEN_KEYS_ALLOW_HTTP = True
    id_tokens.forget_keys()
    cache.clear()
    yield issuer
    server.shutdown()
    server.server_close()
    id_tokens.forget_keys()
