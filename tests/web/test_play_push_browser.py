"""The web client's Web Push in a real browser: a new player turns on "Notify me when
it is my turn" in the lobby, the page registers its service worker (/play/sw.js, scope
/play/) and its subscription as a device; with the page away from the game, the
service pushes her turn to the push service, and the worker shows what it pushed as
a notification of that game; "Stop notifying me" removes the device; once she blocks
notifications, the page says so. The lobby with
notifications on, at 390x844, is saved to ``artifacts/play-push-phone.png`` (or
under ``$TEST_ARTIFACTS_DIR``).

The served service and its worker send Web Push, with VAPID keys, to the local push
service of tests/push_service.py, which checks each request's signature and decrypts
its payload. One thing is not real: headless Chromium cannot subscribe offline
(`PushManager.subscribe` asks Google's push servers for an endpoint), so the page's
`PushManager.prototype.subscribe` and `getSubscription` are replaced by an init
script with ones returning an object shaped like a `PushSubscription`, whose
`toJSON()` is a subscription at the local push service. The browser's permission,
its service worker, the API and the push are real; the push reaches the worker
through the DevTools protocol (`ServiceWorker.deliverPushMessage`), as a push
service's message would.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser import SERVED_WITH_A_WORKER, artifacts_dir, served_with_a_worker
from tests.games.test_notifications_end_to_end import actor, move_once, view
from tests.push_service import VAPID_SUBJECT, PushRequest, PushService, unb64url, vapid_key_pair
from tests.served import Client, Served
from tests.support import wait_until
from tests.web.pages import PHONE, fits, sign_up, token_of

pytestmark = SERVED_WITH_A_WORKER

NOTIFY = "text=Notify me when it is my turn"
STOP = "text=Stop notifying me"

# What a browser does for PushManager, on the page: one subscription per browser
# profile (kept in sessionStorage, so that it outlives a reload as a browser's does),
# made with the key it was given; `former` is one made earlier under another key.
FAKE_PUSH_MANAGER = """(([fresh, former]) => {
  const STORE = "test.push";
  const load = () => JSON.parse(sessionStorage.getItem(STORE) || "null");
  const save = (state) => sessionStorage.setItem(STORE, JSON.stringify(state));
  if (!load()) save({ subscription: former, calls: [] });
  const made = (subscription) => subscription && {
    endpoint: subscription.json.endpoint,
    expirationTime: null,
    options: { userVisibleOnly: true,
               applicationServerKey: new Uint8Array(subscription.key).buffer },
    toJSON: () => subscription.json,
    unsubscribe: async () => {
      const state = load();
      state.calls.push("unsubscribe");
      state.subscription = null;
      save(state);
      return true;
    },
  };
  PushManager.prototype.getSubscription = async function () {
    return made(load().subscription);
  };
  PushManager.prototype.subscribe = async function (options) {
    const state = load();
    state.calls.push("subscribe");
    state.subscription = state.subscription ||
      { json: fresh, key: Array.from(new Uint8Array(options.applicationServerKey)) };
    save(state);
    return made(state.subscription);
  };
})"""

FAKE_STATE = "() => JSON.parse(sessionStorage.getItem('test.push'))"

REGISTRATION = """async () => {
  const registration = await navigator.serviceWorker.getRegistration("/play/");
  return registration && { scope: registration.scope,
                           script: registration.active && registration.active.scriptURL };
}"""

NOTIFICATIONS = """async () => {
  const registration = await navigator.serviceWorker.getRegistration("/play/");
  return (await registration.getNotifications()).map((n) => (
    { title: n.title, body: n.body, tag: n.tag, path: n.data && n.data.path }));
}"""


@pytest.fixture
def service(
    tmp_path: Path,
    var_dir: Path,
    vapid_keys: tuple[str, str],
    push_service: PushService,
    transactional_db: None,
) -> Iterator[Served]:
    """The service and its worker sign Web Push with these keys and may post to the
    local push service over plain http."""
    public, private = vapid_keys
    env = {
        "VAPID_PUBLIC_KEY": public,
        "VAPID_PRIVATE_KEY": private,
        "VAPID_SUBJECT": VAPID_SUBJECT,
        "PUSH_ALLOW_HTTP": "true",
        "PUSH_ALLOW_HTTP_WITHOUT_DEBUG": "true",
    }
    with served_with_a_worker(tmp_path, env, var_dir) as served:
        yield served


def fake_push_manager(page: Any, push_service: PushService) -> dict[str, Any]:
    """Replace the page's PushManager (see the module's docstring), starting from a
    subscription made under another key; the subscription it will make."""
    fresh = push_service.subscription()
    former = {"json": push_service.subscription(), "key": list(unb64url(vapid_key_pair()[0]))}
    page.add_init_script(f"{FAKE_PUSH_MANAGER}({json.dumps([fresh, former])})")
    return fresh


def her_turn_pushed(
    ann: Client, bob: Client, push_service: PushService, endpoint: str
) -> PushRequest:
    """A game of Ann's against Bob, played by Bob over the API until it is Ann's turn:
    the push of her turn that came to her subscription."""
    game_id = ann.post("/games", {"max_players": 2, "target_score": 0, "turn_timeout": 600})
    game_id = game_id.body["id"]
    assert bob.post(f"/games/{game_id}/join").status == 200
    assert ann.post(f"/games/{game_id}/start").status == 200
    for _ in range(50):
        if actor(view(ann, game_id)) == 0:
            break
        move_once(bob, game_id)
    name = endpoint.rsplit("/", 1)[1]

    def pushed() -> list[PushRequest]:
        return [
            r
            for r in push_service.received()
            if r.subscription == name and r.payload and r.payload["kind"] == "your_turn"
        ]

    wait_until(pushed, "Ann's turn pushed", 20)
    push = pushed()[0]
    assert push.status == 201
    assert push.payload is not None
    assert (push.payload["game"], push.payload["seat"]) == (game_id, 0)
    assert push.payload["path"] == f"/play/games/{game_id}"
    return push


def registration_id(page: Any, cdp: Any, scope: str) -> str:
    """The id the DevTools protocol knows the page's service worker registration by."""
    found: dict[str, str] = {}

    def updated(event: dict[str, Any]) -> None:
        for registration in event["registrations"]:
            if registration["scopeURL"] == scope and not registration["isDeleted"]:
                found["id"] = registration["registrationId"]

    cdp.on("ServiceWorker.workerRegistrationUpdated", updated)
    cdp.send("ServiceWorker.enable")
    for _ in range(100):
        if found:
            return found["id"]
        page.wait_for_timeout(50)
    raise AssertionError(f"no registration at {scope}")


def deny_notifications(browser: Any, cdp: Any, origin: str) -> None:
    """What a person who blocks notifications in the site's settings does, in the
    browser profile of the page whose DevTools session is `cdp`."""
    context_id = cdp.send("Target.getTargetInfo")["targetInfo"]["browserContextId"]
    browser.new_browser_cdp_session().send(
        "Browser.setPermission",
        {
            "permission": {"name": "notifications"},
            "setting": "denied",
            "origin": origin,
            "browserContextId": context_id,
        },
    )


# Resolves once the worker covering the client's pages is activated: a push delivered
# while a reload's registration is still settling can find no worker to wake.
ACTIVATED = """async () => {
  const registration = await navigator.serviceWorker.ready;
  const worker = registration.active;
  if (worker.state !== "activated") {
    await new Promise((done) => worker.addEventListener("statechange", () => {
      if (worker.state === "activated") done();
    }));
  }
  return worker.state;
}"""


def shown(page: Any, cdp: Any, origin: str, payload: dict[str, Any]) -> list[dict[str, Any]]:
    """The notifications the page's worker shows once `payload` is pushed to it.

    A push service delivers a message again until the browser takes it, so a delivery
    the browser dropped (its worker starting up on a busy machine) is sent again, at
    most three times; the tag keeps it one notification."""
    assert page.evaluate(ACTIVATED) == "activated"
    registration = registration_id(page, cdp, f"{origin}/play/")
    for _ in range(3):
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {
                "origin": origin,
                "registrationId": registration,
                "data": json.dumps(payload),
            },
        )
        for _ in range(100):
            notes: list[dict[str, Any]] = page.evaluate(NOTIFICATIONS)
            if notes:
                return notes
            page.wait_for_timeout(50)
    return []


def test_a_player_is_notified_of_her_turn_through_the_pages_service_worker(
    service: Served, browser: Any, page: Any, push_service: PushService
):
    page.context.grant_permissions(["notifications"])
    fresh = fake_push_manager(page, push_service)
    page.goto(f"{service.url}/play/")
    sign_up(page, "Ann")
    page.click(NOTIFY)
    page.wait_for_selector(STOP)
    ann = service.client(token_of(page))

    # The page subscribed again, the subscription made under another key being of no
    # use, and registered the new one; its worker covers the client's pages.
    calls = page.evaluate(FAKE_STATE)["calls"]
    assert calls == ["unsubscribe", "subscribe"]
    devices = ann.get("/players/me/devices").body
    assert [(d["kind"], d["address"], d["label"]) for d in devices] == [
        ("webpush", push_service.origin, "Web browser")
    ]
    scope = f"{service.url}/play/"
    assert page.evaluate(REGISTRATION) == {"scope": scope, "script": f"{service.url}/play/sw.js"}

    fits(page, PHONE)
    page.locator(STOP).scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts_dir() / "play-push-phone.png"))

    # Every start registers it again (renewing it), and the lobby shows it on.
    page.reload()
    page.wait_for_selector(STOP)
    wait_until(
        lambda: ann.get("/players/me/devices").body[0]["updated_at"] > devices[0]["updated_at"],
        "the registration renewed",
        10,
    )

    # Away from the game's table, Ann is pushed her turn.
    bob = service.client().sign_up("Bob")
    push = her_turn_pushed(ann, bob, push_service, fresh["endpoint"])

    # The page's worker shows it: the service's words, one notification per game.
    cdp = page.context.new_cdp_session(page)
    assert push.payload is not None
    assert shown(page, cdp, service.url, push.payload) == [
        {
            "title": "UNO",
            "body": push.payload["text"],
            "tag": push.payload["game"],
            "path": push.payload["path"],
        }
    ]

    # "Stop notifying me": the device is removed, the subscription ended.
    page.click(STOP)
    page.wait_for_selector(NOTIFY)
    assert ann.get("/players/me/devices").body == []
    assert page.evaluate(FAKE_STATE)["subscription"] is None

    # Notifications blocked in the browser: the page says so, and where to allow them.
    deny_notifications(browser, cdp, service.url)
    page.click(NOTIFY)
    page.wait_for_selector("text=Notifications are blocked for this site")
    assert ann.get("/players/me/devices").body == []
    assert page.errors == []
