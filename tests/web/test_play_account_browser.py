"""The web client's accounts in a real browser, as two browsers of one person: in the
first, a new guest is nudged to keep her account (it lives only in that browser).
The Google button the service's methods list sends her to Google with the service's
client id, an ID token asked for, a nonce, a state and the page itself to come back
to (the link is not followed: nothing of Google's is reached), and no Apple button is
shown; back on the page with a token in the fragment under that state, the page posts
it with that nonce, and says the service refused it (it is not Google's). She links
her email address with the code mailed to her, and the nudge goes. In the second
browser she signs in with the address and a new code (a wrong one refused first),
and plays as Ann there; its account page lists both browsers' sessions, this one
marked as such, and signs the first out, whose page then finds itself signed out.
There she downloads her data, the identity in it; sets a password (a common one
refused, a new code asked for), which then signs in; and deletes her account with
one more code, the page going back to signing up and every token refused.

The nudge's code step, the sign-in page and the account page at 390x844 are saved
to ``artifacts/play-<keep|sign-in|account>-phone.png`` (or under
``$TEST_ARTIFACTS_DIR``); each fits a phone and a desk, and axe-core finds no
serious or critical violation in it.

The service's worker mails the codes to the SMTP server of tests/smtp_server.py,
where the test reads them as a person reads their mail.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.browser import SERVED_WITH_A_WORKER, artifacts_dir, served_with_a_worker
from tests.served import Served
from tests.smtp_server import MailServer
from tests.web.pages import DESK, PHONE, accessible, fits, new_page, sign_up, token_of

pytestmark = SERVED_WITH_A_WORKER

ANN = "ann@example.com"
GOOGLE_CLIENT = "web-client.example"
SHOWN_MS = 20_000
# One code a second to one address (EMAIL_CODE_INTERVAL_SECONDS), whoever asks.
CODE_INTERVAL = 1.1

KEEP = "section.keep"
PASSWORD = "section[aria-labelledby='password-title']"
DELETE = "section[aria-labelledby='delete-title']"
PASSWORD_OF_ANN = "purple-otter-cards"


@pytest.fixture
def service(
    tmp_path: Path, var_dir: Path, mail_server: MailServer, transactional_db: None
) -> Iterator[Served]:
    """The worker mails codes to the test's SMTP server, a code a second to an
    address; the service signs in with Google for one web client id."""
    env = {
        "EMAIL_URL": mail_server.url,
        "EMAIL_CODE_INTERVAL_SECONDS": "1",
        "GOOGLE_CLIENT_IDS": GOOGLE_CLIENT,
    }
    with served_with_a_worker(tmp_path, env, var_dir) as served:
        yield served


def errors_but_refusals(page: Any, *statuses: int) -> list[str]:
    """The page's errors, but the browser's own note of an answer with one of
    `statuses`."""
    refused = tuple(
        f"Failed to load resource: the server responded with a status of {status} "
        for status in statuses
    )
    return [error for error in page.errors if not error.startswith(refused)]


def focused(page: Any) -> str:
    return str(page.evaluate("() => document.activeElement.id"))


def other_than(code: str) -> str:
    return "111111" if code != "111111" else "222222"


def screen(page: Any, what: str) -> None:
    """Saved at a phone's size, where it fits as at a desk's, and accessible."""
    fits(page, PHONE)
    page.screenshot(path=str(artifacts_dir() / f"play-{what}-phone.png"), full_page=True)
    fits(page, DESK)
    accessible(page)


# A click on the Google button as the page gets it, the browser kept from following
# the link: nothing of Google's is reached.
CLICK_HELD = """(selector) => {
  const link = document.querySelector(selector);
  link.addEventListener("click", (e) => e.preventDefault(), { once: true });
  link.click();
}"""


def back_from_google(page: Any, service: Served, state: str, nonce: str) -> None:
    """As Google sends the person back to the page, with an ID token in the fragment:
    the page posts it with the nonce it sent, to link it, and clears the fragment. This
    token is not one Google signed: the service refuses it, and the lobby says so,
    still nudging her to keep her account."""
    page.evaluate(CLICK_HELD, f"{KEEP} a.provider-google")
    assert page.url == f"{service.url}/play/"
    page.goto("about:blank")  # away, at Google's

    def linking(request: Any) -> bool:
        return request.method == "POST" and request.url.endswith("/players/me/identities")

    with page.expect_request(linking) as posted:
        page.goto(f"{service.url}/play/#id_token=not.a.token&state={state}")
    assert posted.value.post_data_json == {
        "provider": "google",
        "id_token": "not.a.token",
        "nonce": nonce,
    }
    page.locator(".flash.error").wait_for(timeout=SHOWN_MS)
    assert page.inner_text(".flash.error") == "Google did not confirm it is you; try again."
    assert page.url == f"{service.url}/play/"
    page.click(f"{KEEP} >> button[data-key='keep']")
    page.wait_for_selector("#keep-email")


def keeps_her_account(page: Any, service: Served, mail_server: MailServer) -> None:
    """From the lobby's nudge: the address, the code mailed to it, linked."""
    page.wait_for_selector(KEEP, timeout=SHOWN_MS)
    assert "Your account lives only in this browser" in page.inner_text(KEEP)
    page.click(f"{KEEP} >> button[data-key='keep']")
    page.wait_for_selector("#keep-email")
    assert focused(page) == "keep-email"

    # Google, as the service lists it: its sign-in asked for an ID token for the
    # service's client id, with a nonce and state, coming back to the page. No Apple.
    google = page.locator(f"{KEEP} a.provider-google")
    assert google.inner_text() == "Continue with Google"
    href = google.get_attribute("href")
    assert href is not None
    sent_to = urlsplit(href)
    assert f"{sent_to.scheme}://{sent_to.netloc}{sent_to.path}" == (
        "https://accounts.google.com/o/oauth2/v2/auth"
    )
    query = parse_qs(sent_to.query)
    assert query["client_id"] == [GOOGLE_CLIENT]
    assert query["response_type"] == ["id_token"]
    assert query["scope"] == ["openid email"]
    assert query["redirect_uri"] == [f"{service.url}/play/"]
    assert len(query["nonce"][0]) >= 16
    assert len(query["state"][0]) >= 16
    assert query["nonce"] != query["state"]
    assert page.locator("a.provider-apple").count() == 0
    back_from_google(page, service, query["state"][0], query["nonce"][0])

    page.fill("#keep-email", ANN)
    page.click(f"{KEEP} >> text=Send code")
    page.wait_for_selector("#keep-code")
    assert focused(page) == "keep-code"
    assert ANN in page.inner_text(f"{KEEP} .sent")
    screen(page, "keep")
    page.fill("#keep-code", mail_server.next_code_to(ANN, after=0))
    page.click(f"{KEEP} >> text=Link it")
    page.wait_for_selector(".done", timeout=SHOWN_MS)
    assert page.inner_text(".done") == f"Your account is kept: sign in with {ANN} on any device."
    assert page.locator(KEEP).count() == 0


def signs_in(page: Any, service: Served, mail_server: MailServer) -> None:
    """From the sign-up screen: the address, a wrong code, then the right one."""
    page.goto(f"{service.url}/play/")
    page.click(".signin-offer >> text=Sign in")
    page.wait_for_url("**/play/sign-in")
    page.wait_for_selector("#signin-email")
    assert page.locator(".signin a.provider-google").count() == 1
    screen(page, "sign-in")
    page.fill("#signin-email", ANN)
    time.sleep(CODE_INTERVAL)
    page.click(".signin .steps >> text=Send code")
    page.wait_for_selector("#signin-code")
    code = mail_server.next_code_to(ANN, after=1)

    page.fill("#signin-code", other_than(code))
    page.click(".signin .steps button[type=submit]")
    refusal = page.locator(".signin .steps .error")
    refusal.filter(has_text="That code is not right").wait_for(timeout=SHOWN_MS)
    assert refusal.get_attribute("role") == "alert"

    page.fill("#signin-code", code)
    page.click(".signin .steps button[type=submit]")
    page.wait_for_selector("#your-games-title", timeout=SHOWN_MS)
    assert "Playing as Ann" in page.inner_text("#who")
    assert page.locator(KEEP).count() == 0


def sets_a_password(page: Any, service: Served, mail_server: MailServer) -> None:
    """With a code mailed to her address: a common password is refused, saying why and
    that the code was used up; with a new code, hers is set, and signs in."""
    page.click("section[aria-labelledby='password-title'] >> text=Set a password")
    time.sleep(CODE_INTERVAL)
    page.click(f"{PASSWORD} >> text=Send code")
    page.wait_for_selector("#password-code")
    page.fill("#password-code", mail_server.next_code_to(ANN, after=2))
    page.fill("#new-password", "password")
    page.click(f"{PASSWORD} >> text=Save the password")
    refusal = page.locator(f"{PASSWORD} .error").filter(has_text="too common")
    refusal.wait_for(timeout=SHOWN_MS)
    assert "send a new code" in refusal.inner_text()

    time.sleep(CODE_INTERVAL)
    page.click(f"{PASSWORD} >> text=Send a new code")
    page.fill("#password-code", mail_server.next_code_to(ANN, after=3))
    page.fill("#new-password", PASSWORD_OF_ANN)
    page.click(f"{PASSWORD} >> text=Save the password")
    said = page.locator(".flash").filter(has_text="Your password is set")
    said.wait_for(timeout=SHOWN_MS)
    assert page.evaluate("() => document.activeElement.className") == "flash"
    assert "A password is set" in page.inner_text(PASSWORD)
    signed = service.client().post(
        "/players/sign-in", {"email": ANN, "password": PASSWORD_OF_ANN, "device": "a test"}
    )
    assert signed.status == 200, signed.body


def test_a_guest_keeps_her_account_signs_in_elsewhere_signs_out_and_deletes_it(
    service: Served, browser: Any, mail_server: MailServer
):
    first = new_page(browser)
    first.goto(f"{service.url}/play/")
    sign_up(first, "Ann")
    keeps_her_account(first, service, mail_server)
    first_token = token_of(first)
    ann = service.client(first_token)
    me = ann.get("/players/me").body
    assert me["recoverable"] is True
    assert [(i["kind"], i["email"]) for i in me["identities"]] == [("email", ANN)]

    second = new_page(browser)
    signs_in(second, service, mail_server)
    second_token = token_of(second)
    assert second_token != first_token
    assert service.client(second_token).get("/players/me").body["id"] == me["id"]

    # Its account page: both browsers signed in, each named, this one marked.
    second.click("nav >> text=Your account")
    second.wait_for_selector(".sessions li", timeout=SHOWN_MS)
    assert second.inner_text("#account-title") == "Ann's account"
    assert ANN in second.inner_text(".identities")
    sessions = second.locator(".sessions li")
    assert sessions.count() == 2
    here = second.locator(".sessions li.current")
    assert here.count() == 1
    assert "this browser" in here.inner_text()
    listed = service.client(second_token).get("/players/me/sessions").body
    assert all(s["device"] for s in listed), listed
    assert here.get_attribute("data-session") == next(s["id"] for s in listed if s["current"])

    screen(second, "account")

    # The first browser signed out from the second: its token is refused, and its page,
    # at its next use of the service, goes back to signing up, saying why.
    second.click(".sessions li:not(.current) button")
    second.locator(".flash").filter(has_text="is signed out.").wait_for(timeout=SHOWN_MS)
    assert sessions.count() == 1
    assert service.client(first_token).get("/players/me").status == 401
    first.click("nav >> text=Your account")
    first.wait_for_selector("#name", timeout=SHOWN_MS)
    assert "This browser was signed out" in first.inner_text(".flash")
    assert first.evaluate("() => localStorage.getItem('uno.player')") is None

    # Everything held about her, as a file.
    with second.expect_download() as downloading:
        second.click("text=Download my data")
    download = downloading.value
    assert download.suggested_filename == "uno-account.json"
    held = json.loads(Path(download.path()).read_text())
    assert held["player"]["name"] == "Ann"
    assert [(i["kind"], i["email"]) for i in held["identities"]] == [("email", ANN)]

    sets_a_password(second, service, mail_server)

    # Deleting the account, confirmed with a code mailed to her address.
    second.click(f"{DELETE} button.danger")
    second.wait_for_selector(f"{DELETE} .warning")
    time.sleep(CODE_INTERVAL)
    second.click(f"{DELETE} >> text=Send code")
    second.wait_for_selector("#delete-code")
    assert focused(second) == "delete-code"
    second.fill("#delete-code", mail_server.next_code_to(ANN, after=4))
    second.click(f"{DELETE} >> text=Delete my account for good")
    second.wait_for_selector("#name", timeout=SHOWN_MS)
    assert second.inner_text(".flash") == "Your account is deleted."
    assert second.evaluate("() => localStorage.getItem('uno.player')") is None
    assert service.client(second_token).get("/players/me").status == 401
    # Nothing went wrong in either page but the refusals the test brought about, which
    # the browser notes itself: the token not Google's and the first's token signed
    # out; the wrong code and the common password.
    assert errors_but_refusals(first, 403, 401) == []
    assert errors_but_refusals(second, 403, 400) == []
