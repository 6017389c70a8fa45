"""A local push service that speaks the Web Push protocol, for the tests: what a
browser's push service does with the service's requests, checked the way one
checks them, independently of the library that sends them.

For every POST to a subscription's endpoint it verifies the VAPID signature (RFC
8292: ``Authorization: vapid t=<JWT>, k=<public key>``, an ES256 JWT whose `aud` is
the endpoint's origin, whose `exp` is in the future and within 24 hours, with a
`sub`) and decrypts the body (RFC 8291 and RFC 8188, aes128gcm) with the
subscription's private key and auth secret, here with `cryptography` alone. It
records each request (TTL, Topic, Urgency, the decrypted JSON, when it came) and
answers 201, or what it was told to answer next (410, 429 with Retry-After, 500).

Use the `push_service` fixture (it also configures the service's VAPID keys and
lets it post to http://127.0.0.1), or `PushService` itself with `start`/`stop`.
`subscription()` makes a receiver key pair and returns the dict a browser would
POST to /players/me/devices as `subscription`. `push_tasks` keeps the push tasks
the code under test sends, to be run in place.
"""

from __future__ import annotations

import base64
import json
import secrets
import struct
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

VAPID_SUBJECT = "mailto:push-tests@uno.example.com"
MOST_TOKEN_SECONDS = 24 * 3600
# What a served service needs to push here: plain HTTP allowed, and a turn left
# sitting this long pushed.
NOTIFY_AFTER_SECONDS = 4
PUSH_ENV = {
    "NOTIFY_AFTER_SECONDS": str(NOTIFY_AFTER_SECONDS),
    "PUSH_ALLOW_HTTP": "true",
    "PUSH_ALLOW_HTTP_WITHOUT_DEBUG": "true",
}


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def point(public: ec.EllipticCurvePublicKey) -> bytes:
    return public.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )


def vapid_key_pair() -> tuple[str, str]:
    """(public, private), base64url, as the service's settings take them."""
    key = ec.generate_private_key(ec.SECP256R1())
    return b64url(point(key.public_key())), b64url(key.private_numbers().private_value.to_bytes(32))


# -- RFC 8291 / RFC 8188: the receiving end -------------------------------------------


def _hkdf(salt: bytes, ikm: bytes, info: bytes, length: int) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(ikm)


@dataclass
class Receiver:
    """A browser's side of one subscription: its P-256 key pair and auth secret."""

    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth: bytes = field(default_factory=lambda: secrets.token_bytes(16))

    @property
    def p256dh(self) -> str:
        return b64url(point(self.key.public_key()))

    def subscription(self, endpoint: str) -> dict[str, Any]:
        """What a browser's PushSubscription.toJSON() gives for this receiver."""
        return {
            "endpoint": endpoint,
            "expirationTime": None,
            "keys": {"p256dh": self.p256dh, "auth": b64url(self.auth)},
        }

    def decrypt(self, body: bytes) -> bytes:
        """The plaintext of an aes128gcm body encrypted to this receiver (RFC 8291)."""
        salt, record_size, id_length = body[:16], struct.unpack(">I", body[16:20])[0], body[20]
        sender_point = body[21 : 21 + id_length]
        ciphertext = body[21 + id_length :]
        if id_length != 65 or record_size < 18:
            raise ValueError(f"keyid of {id_length} bytes, record size {record_size}")
        sender = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), sender_point)
        shared = self.key.exchange(ec.ECDH(), sender)
        key_info = b"WebPush: info\x00" + point(self.key.public_key()) + sender_point
        ikm = _hkdf(self.auth, shared, key_info, 32)
        cek = _hkdf(salt, ikm, b"Content-Encoding: aes128gcm\x00", 16)
        base_nonce = _hkdf(salt, ikm, b"Content-Encoding: nonce\x00", 12)
        records = [
            ciphertext[start : start + record_size]
            for start in range(0, len(ciphertext), record_size)
        ]
        plaintext = b""
        for number, record in enumerate(records):
            nonce = (int.from_bytes(base_nonce, "big") ^ number).to_bytes(12, "big")
            padded = AESGCM(cek).decrypt(nonce, record, None).rstrip(b"\x00")
            delimiter = b"\x02" if number == len(records) - 1 else b"\x01"
            if not padded.endswith(delimiter):
                raise ValueError(f"record {number} lacks its padding delimiter")
            plaintext += padded[:-1]
        return plaintext


# -- RFC 8292: VAPID ----------------------------------------------------------------


class VapidRefused(Exception):
    pass


def verify_vapid(authorization: str, *, audience: str, public_key: str | None) -> dict[str, Any]:
    """The claims of a valid ``vapid t=..., k=...`` header for `audience` (signed by
    `public_key` when given); `VapidRefused` saying why otherwise."""
    scheme, _, params = authorization.partition(" ")
    if scheme.lower() != "vapid":
        raise VapidRefused(f"scheme {scheme!r}")
    values = dict(part.strip().split("=", 1) for part in params.split(",") if "=" in part)
    if "t" not in values or "k" not in values:
        raise VapidRefused("t and k are required")
    if public_key is not None and values["k"].rstrip("=") != public_key.rstrip("="):
        raise VapidRefused("k is not the application server's key")
    header_b64, claims_b64, signature_b64 = values["t"].split(".")
    header = json.loads(unb64url(header_b64))
    if header.get("alg") != "ES256":
        raise VapidRefused(f"alg {header.get('alg')!r}")
    signature = unb64url(signature_b64)
    if len(signature) != 64:
        raise VapidRefused("an ES256 signature is 64 bytes")
    signer = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(values["k"]))
    der = encode_dss_signature(int.from_bytes(signature[:32]), int.from_bytes(signature[32:]))
    try:
        signer.verify(der, f"{header_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise VapidRefused("bad signature") from None
    claims: dict[str, Any] = json.loads(unb64url(claims_b64))
    now = time.time()
    if claims.get("aud") != audience:
        raise VapidRefused(f"aud {claims.get('aud')!r} is not {audience!r}")
    if not now < claims.get("exp", 0) <= now + MOST_TOKEN_SECONDS:
        raise VapidRefused(f"exp {claims.get('exp')!r} is not within the next 24 hours")
    if not claims.get("sub"):
        raise VapidRefused("no sub")
    return claims


# -- a threaded HTTP server -----------------------------------------------------------


# What a local server answers: status, headers, body.
Answer = tuple[int, dict[str, str], bytes]


@dataclass
class Scripted:
    """An answer to give instead of the usual one."""

    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""


class LocalServer:
    """A threaded HTTP server on 127.0.0.1 that hands each POST to `handle`, and can
    be told what to answer the next requests."""

    def __init__(self) -> None:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                status, headers, answer = outer.handle(self.path, dict(self.headers), body)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.lock = threading.Condition()
        self.script: list[Scripted] = []

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def answer_next(
        self, status: int, times: int = 1, headers: dict[str, str] | None = None, body: Any = b""
    ) -> None:
        """Answer the next `times` requests (that would be accepted) with `status`."""
        raw = json.dumps(body).encode() if not isinstance(body, bytes) else body
        with self.lock:
            self.script += [Scripted(status, dict(headers or {}), raw) for _ in range(times)]

    def scripted(self) -> Scripted | None:
        with self.lock:
            return self.script.pop(0) if self.script else None

    def handle(
        self, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        raise NotImplementedError


# -- the Web Push service -------------------------------------------------------------


@dataclass
class PushRequest:
    """One request the push service received, as it understood it."""

    subscription: str  # the subscription's id (the endpoint's last part)
    at: float  # time.time() on arrival
    ttl: str | None
    topic: str | None
    urgency: str | None
    content_encoding: str | None
    payload: dict[str, Any] | None  # decrypted; None when refused before
    status: int  # what it was answered
    refusal: str = ""  # why it was refused, when the push service refused it


class PushService(LocalServer):
    def __init__(self, vapid_public_key: str | None = None) -> None:
        super().__init__()
        self.vapid_public_key = vapid_public_key
        self.receivers: dict[str, Receiver] = {}
        self.requests: list[PushRequest] = []

    def subscription(self) -> dict[str, Any]:
        """A new subscription: what a browser's pushManager.subscribe() gives, as its
        toJSON() writes it."""
        receiver = Receiver()
        name = secrets.token_urlsafe(12)
        with self.lock:
            self.receivers[name] = receiver
        return receiver.subscription(f"{self.origin}/push/{name}")

    def device_body(self, label: str = "") -> dict[str, Any]:
        """The body of POST /players/me/devices for a new subscription."""
        body: dict[str, Any] = {"kind": "webpush", "subscription": self.subscription()}
        if label:
            body["label"] = label
        return body

    def handle(
        self, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        headers = {name.lower(): value for name, value in headers.items()}
        name = path.rsplit("/", 1)[-1]
        record = PushRequest(
            subscription=name,
            at=time.time(),
            ttl=headers.get("ttl"),
            topic=headers.get("topic"),
            urgency=headers.get("urgency"),
            content_encoding=headers.get("content-encoding"),
            payload=None,
            status=201,
        )
        answer: Scripted | None = None
        receiver = self.receivers.get(name)
        try:
            if receiver is None:
                record.status, record.refusal = 404, "no such subscription"
            else:
                verify_vapid(
                    headers.get("authorization", ""),
                    audience=self.origin,
                    public_key=self.vapid_public_key,
                )
                if record.content_encoding != "aes128gcm":
                    raise VapidRefused(f"content encoding {record.content_encoding!r}")
                if record.ttl is None or not record.ttl.isdigit():
                    raise VapidRefused("TTL is required")
                record.payload = json.loads(receiver.decrypt(body))
                answer = self.scripted()
                if answer is not None:
                    record.status = answer.status
        except (VapidRefused, ValueError) as error:
            record.status, record.refusal = 400, f"{type(error).__name__}: {error}"
        with self.lock:
            self.requests.append(record)
            self.lock.notify_all()
        if answer is not None:
            return answer.status, answer.headers, answer.body
        return record.status, {"Location": f"{self.origin}/message/{secrets.token_hex(4)}"}, b""

    def received(self) -> list[PushRequest]:
        with self.lock:
            return list(self.requests)

    def wait_for(self, count: int, seconds: float = 10.0) -> list[PushRequest]:
        """The requests once `count` have come (fails after `seconds`)."""
        deadline = time.monotonic() + seconds
        with self.lock:
            while len(self.requests) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{len(self.requests)} push requests came, not {count}")
                self.lock.wait(left)
            return list(self.requests)


# -- fixtures -------------------------------------------------------------------------


@dataclass
class SentPush:
    name: str
    args: list[Any]
    countdown: float | None


class PushTasks:
    """The push tasks sent to the broker, kept here to be run in place."""

    def __init__(self) -> None:
        self.sent: list[SentPush] = []

    def record(self, name: str, args: list[Any], *, countdown: float | None) -> None:
        self.sent.append(SentPush(name, list(args), countdown))

    def run(self, task: SentPush) -> Any:
        """Run one sent task in place, as the worker would (its signals included)."""
        import players.tasks  # noqa: F401  (registers the tasks, as the worker does)
        from unoservice.celery import app

        self.sent.remove(task)
        return app.tasks[task.name].apply(args=task.args).get()

    def run_all(self, *, wait: bool = False) -> list[Any]:
        """Run every task sent until none is left (those they send too); with `wait`,
        each retry no sooner than its countdown."""
        results = []
        while self.sent:
            task = self.sent[0]
            if wait and task.countdown:
                time.sleep(task.countdown)
            results.append(self.run(task))
        return results


@pytest.fixture(autouse=True)
def push_tasks(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> PushTasks:
    """The push tasks the code under test sent, kept here instead of the broker (as
    `sent_tasks` keeps the game tasks); tests marked ``worker`` send them for real."""
    tasks = PushTasks()
    if request.node.get_closest_marker("worker") is None:
        from players.push import dispatch

        monkeypatch.setattr(dispatch, "send", tasks.record)
    return tasks


def configure_push(monkeypatch: pytest.MonkeyPatch, settings: Any, **values: Any) -> None:
    """Set push settings in this process and in the environment of the workers the
    test starts."""
    for name, value in values.items():
        setattr(settings, name, value)
        monkeypatch.setenv(name, str(value).lower() if isinstance(value, bool) else str(value))


@pytest.fixture
def vapid_keys(monkeypatch: pytest.MonkeyPatch, settings: Any) -> tuple[str, str]:
    """The service configured with a fresh VAPID key pair; (public, private)."""
    public, private = vapid_key_pair()
    configure_push(
        monkeypatch,
        settings,
        VAPID_PUBLIC_KEY=public,
        VAPID_PRIVATE_KEY=private,
        VAPID_SUBJECT=VAPID_SUBJECT,
        PUSH_ALLOW_HTTP=True,
    )
    return public, private


@pytest.fixture
def push_service(vapid_keys: tuple[str, str]) -> Iterator[PushService]:
    """A running local push service; the service sends Web Push with its own VAPID
    key, which the push service checks."""
    service = PushService(vapid_public_key=vapid_keys[0])
    service.start()
    yield service
    service.stop()
