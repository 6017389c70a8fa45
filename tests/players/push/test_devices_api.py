"""``/players/me/devices``: a player registers browsers and apps to be reached at,
lists them without their secrets and removes them; the same address again updates
it; a player has 10 at most; anything malformed is a 400, never a 500."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from players.models import Device
from tests.factories import DeviceFactory, assert_error
from tests.push_service import Receiver, b64url

ENDPOINT = "https://updates.push.services.mozilla.com/wpush/v2/gAAAAABmZ"


def subscription(endpoint: str = ENDPOINT) -> dict[str, Any]:
    return Receiver().subscription(endpoint)


def webpush(endpoint: str = ENDPOINT, **more: Any) -> dict[str, Any]:
    return {"kind": "webpush", "subscription": subscription(endpoint), **more}


def test_a_browser_subscription_is_registered_and_answered_without_its_keys(host):
    body = webpush(label="Firefox on the laptop")
    response = host.post("/players/me/devices", body)
    assert response.status_code == 201, response.json()
    device = response.json()
    assert set(device) == {
        "id",
        "kind",
        "address",
        "label",
        "created_at",
        "updated_at",
        "last_used_at",
    }
    assert device["kind"] == "webpush"
    assert device["address"] == "https://updates.push.services.mozilla.com"
    assert device["label"] == "Firefox on the laptop"
    assert device["last_used_at"] is None
    stored = Device.objects.get(pk=device["id"])
    assert stored.player == host.player
    assert stored.address == ENDPOINT
    assert stored.p256dh == body["subscription"]["keys"]["p256dh"]
    assert body["subscription"]["keys"]["auth"] not in response.content.decode()


def test_an_app_token_is_registered_and_listed_by_its_last_characters(host):
    response = host.post("/players/me/devices", {"kind": "fcm", "token": "abc:APA91bXYZ123456"})
    assert response.status_code == 201, response.json()
    (listed,) = host.get("/players/me/devices").json()
    assert listed["kind"] == "fcm"
    assert listed["address"] == "…123456"
    assert "APA91b" not in str(listed)


def test_registering_the_same_endpoint_again_updates_it(host):
    first = host.post("/players/me/devices", webpush()).json()
    renewed = webpush(label="renewed")
    response = host.post("/players/me/devices", renewed)
    assert response.status_code == 200
    assert response.json()["id"] == first["id"]
    assert response.json()["label"] == "renewed"
    (device,) = Device.objects.all()
    assert device.p256dh == renewed["subscription"]["keys"]["p256dh"]


def test_a_browser_registered_by_another_player_becomes_the_last_ones(host, guest):
    mine = host.post("/players/me/devices", webpush()).json()
    response = guest.post("/players/me/devices", webpush())
    assert response.status_code == 200
    assert response.json()["id"] == mine["id"]
    assert host.get("/players/me/devices").json() == []
    assert [d["id"] for d in guest.get("/players/me/devices").json()] == [mine["id"]]


def test_a_player_lists_their_own_devices_only_oldest_first(host, guest):
    DeviceFactory(player=guest.player)
    first = host.post("/players/me/devices", webpush()).json()
    second = host.post("/players/me/devices", {"kind": "fcm", "token": "tok-1"}).json()
    assert [d["id"] for d in host.get("/players/me/devices").json()] == [first["id"], second["id"]]


def test_a_player_removes_their_device_and_nobody_elses(host, guest):
    mine = host.post("/players/me/devices", webpush()).json()
    theirs = DeviceFactory(player=guest.player)
    assert_error(host.delete(f"/players/me/devices/{theirs.pk}"), 404, "not_found")
    assert_error(host.delete("/players/me/devices/not-a-uuid"), 404, "not_found")
    assert host.delete(f"/players/me/devices/{mine['id']}").status_code == 204
    assert_error(host.delete(f"/players/me/devices/{mine['id']}"), 404, "not_found")
    assert list(Device.objects.all()) == [theirs]


def test_a_player_has_ten_devices_at_most(host, guest):
    for number in range(10):
        assert (
            host.post("/players/me/devices", {"kind": "fcm", "token": f"t{number}"}).status_code
            == 201
        )
    error = assert_error(
        host.post("/players/me/devices", {"kind": "fcm", "token": "eleventh"}),
        409,
        "too_many_devices",
    )
    assert error["details"] == {"limit": 10}
    # Registering one of them again is no new device ...
    assert host.post("/players/me/devices", {"kind": "fcm", "token": "t3"}).status_code == 200
    # ... but taking over another player's is.
    DeviceFactory(player=guest.player, address="guests")
    assert_error(
        host.post("/players/me/devices", {"kind": "fcm", "token": "guests"}),
        409,
        "too_many_devices",
    )
    assert Device.objects.get(address="guests").player == guest.player


def test_devices_need_a_token(anonymous):
    assert_error(anonymous.get("/api/v1/players/me/devices"), 401, "not_authenticated")
    assert_error(
        anonymous.post("/api/v1/players/me/devices", webpush(), format="json"),
        401,
        "not_authenticated",
    )


def test_a_local_endpoint_is_taken_only_when_plain_http_is_allowed(host, settings):
    settings.PUSH_ALLOW_HTTP = True
    local = "http://127.0.0.1:8123/push/abc"
    assert host.post("/players/me/devices", webpush(local)).status_code == 201


def with_keys(**keys: Any) -> dict[str, Any]:
    body = webpush()
    body["subscription"]["keys"].update(keys)
    return body


NOT_ON_THE_CURVE = b64url(b"\x04" + b"\x01" * 64)
COMPRESSED = b64url(b"\x02" + b"\x01" * 32)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (webpush("http://push.example.com/x"), "subscription.endpoint"),
        (webpush("https://127.0.0.1/x"), "subscription.endpoint"),
        (webpush("https://localhost:8443/x"), "subscription.endpoint"),
        (webpush("https://[::1]/x"), "subscription.endpoint"),
        (webpush("ftp://push.example.com/x"), "subscription.endpoint"),
        (webpush("https:///no-host"), "subscription.endpoint"),
        (webpush("https://user:pw@push.example.com/x"), "subscription.endpoint"),
        (webpush("https://push.example.com:99999/x"), "subscription.endpoint"),
        (webpush("https://[::1/x"), "subscription.endpoint"),
        (webpush("https://push.example.com/a b"), "subscription.endpoint"),
        (webpush("https://push.example.com/é"), "subscription.endpoint"),
        (webpush("https://push.example.com/" + "a" * 2100), "subscription.endpoint"),
        (webpush(""), "subscription.endpoint"),
        (with_keys(p256dh="not base64!"), "subscription.keys.p256dh"),
        (with_keys(p256dh=b64url(b"\x04" + b"\x01" * 10)), "subscription.keys.p256dh"),
        (with_keys(p256dh=NOT_ON_THE_CURVE), "subscription.keys.p256dh"),
        (with_keys(p256dh=COMPRESSED), "subscription.keys.p256dh"),
        (with_keys(p256dh="A" * 101), "subscription.keys.p256dh"),
        (with_keys(auth=b64url(b"\x01" * 15)), "subscription.keys.auth"),
        (with_keys(auth=base64.b64encode(b"\xff" * 16).decode()), "subscription.keys.auth"),
        (with_keys(auth="A"), "subscription.keys.auth"),
        (with_keys(auth=5), "subscription.keys.auth"),
        (with_keys(extra="x"), "subscription.keys.extra"),
        ({"kind": "webpush"}, "subscription"),
        ({**webpush(), "token": "x"}, "token"),
        ({"kind": "fcm"}, "token"),
        ({"kind": "fcm", "token": "x", "subscription": subscription()}, "subscription"),
        ({"kind": "fcm", "token": "has space"}, "token"),
        ({"kind": "fcm", "token": "x" * 1025}, "token"),
        ({"kind": "fcm", "token": ""}, "token"),
        ({"kind": "fcm", "token": 12345}, "token"),
        ({"kind": "fcm", "token": "x", "label": "\x00"}, "label"),
        ({"kind": "fcm", "token": "x", "label": "l" * 101}, "label"),
        ({"kind": "fcm", "token": "x", "label": None}, "label"),
        ({"kind": "apns", "token": "a1b2"}, "kind"),
        ({"kind": "sms", "token": "x"}, "kind"),
        ({"kind": 1, "token": "x"}, "kind"),
        ({"token": "x"}, "kind"),
        ({"kind": "webpush", "subscription": "https://push.example.com/x"}, "subscription"),
        ({"kind": "webpush", "subscription": {**subscription(), "keys": []}}, "subscription.keys"),
        (
            {"kind": "webpush", "subscription": {**subscription(), "expirationTime": "soon"}},
            "subscription.expirationTime",
        ),
        ({"kind": "webpush", "subscription": {**subscription(), "extra": 1}}, "subscription.extra"),
        ({"kind": "fcm", "token": "x", "extra": 1}, "extra"),
    ],
)
def test_a_malformed_device_is_a_400_naming_the_field(host, body, field):
    error = assert_error(host.post("/players/me/devices", body), 400, "invalid_request")
    assert field in error["details"]["fields"], error
    assert not Device.objects.exists()


def test_apns_says_it_is_not_supported_yet(host):
    error = assert_error(
        host.post("/players/me/devices", {"kind": "apns", "token": "a1b2c3"}),
        400,
        "invalid_request",
    )
    assert "not supported yet" in error["message"]


@pytest.mark.parametrize("body", [[], "webpush", 5, None, {"kind": None}])
def test_a_body_that_is_no_device_object_is_a_400(host, body):
    assert_error(host.post("/players/me/devices", body), 400, "invalid_request")


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner, max_size=3)
    ),
    max_leaves=10,
)
FIELDS = st.fixed_dictionaries(
    {},
    optional={
        "kind": st.sampled_from(["webpush", "fcm", "apns"]) | JSON,
        "token": st.text(max_size=40) | JSON,
        "label": JSON,
        "subscription": st.fixed_dictionaries(
            {},
            optional={
                "endpoint": st.sampled_from([ENDPOINT, "https://x", "http://x"]) | st.text(),
                "expirationTime": JSON,
                "keys": st.fixed_dictionaries(
                    {}, optional={"p256dh": st.text(max_size=100), "auth": st.text(max_size=30)}
                )
                | JSON,
            },
        )
        | JSON,
    },
)


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=FIELDS | JSON)
def test_no_body_whatever_makes_a_500(host, rate_limits_off, body):
    response = host.post("/players/me/devices", body)
    assert response.status_code in (200, 201, 400, 409), response.content


@pytest.mark.parametrize(
    "endpoint",
    [
        "https://fcm.googleapis.com/fcm/send/dJ3pF0Y5_QE:APA91b",
        "https://updates.push.services.mozilla.com/wpush/v2/gAAAAABmZ",
        "https://wns2-par02p.notify.windows.com/w/?token=BQYAAAD",
        "https://web.push.apple.com/QOs8mXzJ",
        "https://FCM.googleapis.com./fcm/send/x",
    ],
)
def test_the_browsers_push_services_are_taken(host, endpoint):
    assert host.post("/players/me/devices", webpush(endpoint)).status_code == 201


@pytest.mark.parametrize(
    "endpoint",
    [
        "https://internal.example.com/push",
        "https://metadata.google.internal/computeMetadata/v1/",
        "https://fcm.googleapis.com.attacker.example/x",
        "https://evilfcm.googleapis.com.example/x",
        "https://notgoogleapis.com/x",
    ],
)
def test_an_endpoint_on_any_other_host_is_refused_so_the_worker_posts_to_no_host_a_client_picks(
    host, endpoint
):
    error = assert_error(
        host.post("/players/me/devices", webpush(endpoint)), 400, "invalid_request"
    )
    assert error["details"]["fields"] == {
        "subscription.endpoint": ["must be the URL of a known push service"]
    }
    assert not Device.objects.exists()


def test_the_operator_chooses_the_push_services(host, settings):
    settings.PUSH_SERVICE_HOSTS = ["push.example.net"]
    assert (
        host.post("/players/me/devices", webpush("https://a.push.example.net/x")).status_code == 201
    )
    refused = host.post("/players/me/devices", webpush(ENDPOINT))
    assert_error(refused, 400, "invalid_request")


@pytest.mark.parametrize(
    "endpoint",
    [
        # urllib3 ends these hosts at the backslash: 169.254.169.254, 127.0.0.1, localhost.
        "https://169.254.169.254\\.fcm.googleapis.com/latest/meta-data/",
        "https://127.0.0.1\\.fcm.googleapis.com/x",
        "https://localhost\\.fcm.googleapis.com/x",
        "https://fcm.googleapis.com/fcm\\send/x",
        # userinfo, either side of the push host
        "https://evil@fcm.googleapis.com/",
        "https://fcm.googleapis.com@evil.com/",
        "https://fcm.googleapis.com:x@evil.com/",
        # ports other than 443, however written
        "https://fcm.googleapis.com:18431/x",
        "https://fcm.googleapis.com:0443/x",
        "https://fcm.googleapis.com:80/x",
        "https://fcm.googleapis.com:/x",
        "https://fcm.googleapis.com:+443/x",
        # hosts that parse differently once decoded
        "https://fcm%2egoogleapis.com/x",
        "https://169.254.169.254%2f.fcm.googleapis.com/x",
        "https://fcm.googleapis.com%40evil.com/x",
        "https://fcm.googleapis\u3002com/x",
        "https://fcm.googleapis.com\uff0fevil.com/x",
        "https://xn--fcm.googleapis.com\u200b/x",
        "https://[::ffff:a9fe:a9fe].fcm.googleapis.com/x",
    ],
)
def test_an_endpoint_the_sending_library_could_read_otherwise_is_refused(host, endpoint):
    error = assert_error(
        host.post("/players/me/devices", webpush(endpoint)), 400, "invalid_request"
    )
    assert list(error["details"]["fields"]) == ["subscription.endpoint"]
    assert not Device.objects.exists()


def test_port_443_written_out_is_the_push_services_own(host):
    endpoint = "https://fcm.googleapis.com:443/fcm/send/x"
    assert host.post("/players/me/devices", webpush(endpoint)).status_code == 201


def test_a_push_host_is_taken_without_being_resolved(host, monkeypatch):
    """Where it leads is checked when sending: registering works offline."""
    import socket

    def offline(*args: Any, **kwargs: Any) -> Any:
        raise socket.gaierror("no network")

    monkeypatch.setattr(socket, "getaddrinfo", offline)
    assert host.post("/players/me/devices", webpush()).status_code == 201
