"""A player's devices: registering, listing and removing them, and what delivery
learns of them (accepted, gone). The API, delivery and tests change devices only
here."""

from __future__ import annotations

import base64
import binascii
import ipaddress
import re
import uuid
from dataclasses import dataclass
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from urllib3.exceptions import LocationParseError
from urllib3.util import parse_url

from players.models import Device, DeviceKind, Player
from unoservice.errors import InvalidRequest, NotFound, TooManyDevices

MAX_DEVICES = 10
MAX_ENDPOINT_LENGTH = 2048
MAX_TOKEN_LENGTH = 1024
MAX_LABEL_LENGTH = 100
# The receiver's key is an uncompressed P-256 point; its auth secret 16 bytes (RFC 8291).
P256DH_BYTES = 65
AUTH_BYTES = 16
# base64url as browsers write it, padded or not; the padded forms of 65 and 16 bytes
# are 88 and 24 characters.
MAX_KEY_TEXT = 100
_BASE64URL = re.compile(r"[A-Za-z0-9_-]+={0,2}")
# FCM's and APNs' tokens: letters, digits and a little punctuation, never a space.
TOKEN_PATTERN = f"^[A-Za-z0-9_:.+/=-]{{1,{MAX_TOKEN_LENGTH}}}$"
TOKEN_PROBLEM = f"1-{MAX_TOKEN_LENGTH} letters, digits and the characters _:.+/=- of a token"
_TOKEN = re.compile(TOKEN_PATTERN)
# Shown of an FCM token in a list: enough to tell two apart.
TOKEN_TAIL = 6
LOCAL_HOSTS = ("localhost", "localhost.localdomain")
# An endpoint's authority as written: a DNS name (or dotted numbers, refused later
# unless PUSH_ALLOW_HTTP), and a port of digits when there is one.
_AUTHORITY = re.compile(
    r"(?P<host>[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9.])?)(?::(?P<port>[0-9]*))?"
)


def _invalid(field: str, problem: str) -> InvalidRequest:
    return InvalidRequest(f"{field}: {problem}", details={"fields": {field: [problem]}})


def decode_base64url(text: str) -> bytes | None:
    """The bytes of base64url `text` (padded or not); None when it is not base64url."""
    if not _BASE64URL.fullmatch(text):
        return None
    try:
        return base64.urlsafe_b64decode(text.rstrip("=") + "=" * (-len(text.rstrip("=")) % 4))
    except (binascii.Error, ValueError):
        return None


def clean_endpoint(endpoint: str) -> str:
    """A Web Push endpoint: an https URL of a known push service (PUSH_SERVICE_HOSTS)
    on port 443. It is read by the parser of the library that sends (urllib3's), and
    anything another parser could read otherwise is refused: a backslash, userinfo,
    a host that is not plain letters, digits, dots and hyphens (percent-encoded or
    numeric), a port other than 443 written so. PUSH_ALLOW_HTTP (development and
    tests) lets http, any host and any port through. Where the host leads is
    checked when sending (unoservice.outbound), not here."""
    field = "subscription.endpoint"
    if not 1 <= len(endpoint) <= MAX_ENDPOINT_LENGTH:
        raise _invalid(field, f"1-{MAX_ENDPOINT_LENGTH} characters")
    if not endpoint.isascii() or not endpoint.isprintable() or " " in endpoint:
        raise _invalid(field, "a URL of printable ASCII characters without spaces")
    if "\\" in endpoint:
        raise _invalid(field, "a URL without backslashes")
    allow_local = settings.PUSH_ALLOW_HTTP
    try:
        parts = parse_url(endpoint)
        split = urlsplit(endpoint)
    except (LocationParseError, ValueError):
        raise _invalid(field, "not a URL") from None
    schemes = ("https", "http") if allow_local else ("https",)
    if parts.scheme not in schemes or split.scheme != parts.scheme:
        raise _invalid(field, "must be an https URL")
    written = _AUTHORITY.fullmatch(split.netloc)
    if parts.auth is not None or "@" in split.netloc or split.fragment:
        raise _invalid(field, "must be a URL with a host, without credentials or fragment")
    if written is None or parts.host != written["host"].lower():
        # What urllib3 would connect to must be what is written, character for
        # character: a percent-encoded or otherwise rewritten host is refused.
        raise _invalid(field, "must be a URL whose host is a plain DNS name")
    port = written["port"]
    if not allow_local and port is not None and port != "443":
        raise _invalid(field, "must be a URL on port 443 (or none)")
    if allow_local and port is not None and not (port.isdigit() and 0 < int(port) < 65536):
        raise _invalid(field, "must be a URL on a port from 1 to 65535")
    host = written["host"]
    if not allow_local and _local(host):
        # The worker would post to whatever address it is given: never to its own
        # machine or a literal address, which no push service uses.
        raise _invalid(field, "must be a push service's URL, not a local or numeric host")
    if not allow_local and not _push_service(host):
        # Nor to any other host a client names (a service inside the network).
        raise _invalid(field, "must be the URL of a known push service")
    return endpoint


def _push_service(host: str) -> bool:
    name = host.rstrip(".").lower()
    return any(
        name == known or name.endswith("." + known)
        for known in (entry.lower() for entry in settings.PUSH_SERVICE_HOSTS)
    )


def _local(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return host.rstrip(".").lower() in LOCAL_HOSTS or host.endswith(".localhost")
    return True


def clean_p256dh(text: str) -> str:
    raw = decode_base64url(text) if len(text) <= MAX_KEY_TEXT else None
    problem = "the base64url of a 65-byte uncompressed P-256 public key"
    if raw is None or len(raw) != P256DH_BYTES or raw[0] != 4:
        raise _invalid("subscription.keys.p256dh", problem)
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw)
    except ValueError:
        raise _invalid(
            "subscription.keys.p256dh", problem + " (not a point of the curve)"
        ) from None
    return text.rstrip("=")


def clean_auth(text: str) -> str:
    raw = decode_base64url(text) if len(text) <= MAX_KEY_TEXT else None
    if raw is None or len(raw) != AUTH_BYTES:
        raise _invalid("subscription.keys.auth", "the base64url of a 16-byte secret")
    return text.rstrip("=")


def clean_token(token: str) -> str:
    if not _TOKEN.fullmatch(token):
        raise _invalid("token", TOKEN_PROBLEM)
    return token


def clean_label(label: str) -> str:
    label = label.strip()
    if len(label) > MAX_LABEL_LENGTH or not label.isprintable():
        raise _invalid("label", f"at most {MAX_LABEL_LENGTH} printable characters")
    return label


@dataclass(frozen=True)
class Registration:
    """A device as a client describes it, checked: what `device_register` stores."""

    kind: str
    address: str
    p256dh: str = ""
    auth: str = ""
    label: str = ""

    @classmethod
    def webpush(cls, *, endpoint: str, p256dh: str, auth: str, label: str = "") -> Registration:
        return cls(
            DeviceKind.WEBPUSH,
            clean_endpoint(endpoint),
            clean_p256dh(p256dh),
            clean_auth(auth),
            clean_label(label),
        )

    @classmethod
    def fcm(cls, *, token: str, label: str = "") -> Registration:
        return cls(DeviceKind.FCM, clean_token(token), label=clean_label(label))


# -- services ------------------------------------------------------------------------


def device_register(
    *, player_id: uuid.UUID | str, registration: Registration
) -> tuple[Device, bool]:
    """Register where to reach the player; returns the device and whether it is new.
    The same endpoint or token again updates its keys and label, and moves it to
    this player when another had it (a browser or phone belongs to whoever
    registered last). `TooManyDevices` beyond `MAX_DEVICES`. Locks the player row,
    then the device row of the address."""
    for _ in range(2):
        try:
            with transaction.atomic():
                return _register(player_id, registration)
        except IntegrityError:
            # Another registration of the same address was inserted meanwhile: the
            # second pass finds it, and updates it.
            continue
    raise IntegrityError("the device was registered and removed again meanwhile")


def _register(player_id: uuid.UUID | str, registration: Registration) -> tuple[Device, bool]:
    player = Player.objects.select_for_update().get(pk=player_id)
    device = (
        Device.objects.select_for_update()
        .filter(kind=registration.kind, address=registration.address)
        .first()
    )
    joins = device is None or device.player_id != player.pk
    if joins and Device.objects.filter(player=player).count() >= MAX_DEVICES:
        raise TooManyDevices(
            f"at most {MAX_DEVICES} devices a player; remove one first",
            details={"limit": MAX_DEVICES},
        )
    if device is None:
        device = Device.objects.create(
            player=player,
            kind=registration.kind,
            address=registration.address,
            p256dh=registration.p256dh,
            auth=registration.auth,
            label=registration.label,
        )
        return device, True
    device.player = player
    device.p256dh = registration.p256dh
    device.auth = registration.auth
    device.label = registration.label
    device.save(update_fields=["player", "p256dh", "auth", "label", "updated_at"])
    return device, False


def device_remove(*, player_id: uuid.UUID | str, device_id: uuid.UUID | str) -> None:
    """Remove one of the player's devices; `NotFound` for anyone else's (or none).
    Locks nothing: it deletes one row."""
    try:
        pk = uuid.UUID(str(device_id))
    except ValueError:
        raise NotFound("no such device") from None
    with transaction.atomic():
        deleted, _ = Device.objects.filter(pk=pk, player_id=player_id).delete()
    if not deleted:
        raise NotFound("no such device")


def device_gone(*, device_id: uuid.UUID | str) -> None:
    """The push service said the device no longer exists: it goes at once. Locks
    nothing: it deletes one row, if it is still there."""
    with transaction.atomic():
        Device.objects.filter(pk=device_id).delete()


def device_used(*, device_id: uuid.UUID | str) -> None:
    """A push service accepted a notification for the device now. Locks nothing: one
    UPDATE."""
    with transaction.atomic():
        Device.objects.filter(pk=device_id).update(last_used_at=timezone.now())


# -- reads ---------------------------------------------------------------------------


def devices_of(player_id: uuid.UUID | str) -> list[Device]:
    return list(Device.objects.filter(player_id=player_id))


def shown_address(device: Device) -> str:
    """What a list shows of where a device is: the push service's origin, or the
    token's end; never the whole, which is as good as a credential."""
    if device.kind == DeviceKind.WEBPUSH:
        parts = urlsplit(device.address)
        return f"{parts.scheme}://{parts.netloc}"
    return "…" + device.address[-TOKEN_TAIL:]
