"""The web client's friends, invitations and table talk in a real browser, two people
in two browsers: Bob's friends page shows his friend code and link; Ann types his
code on hers, and Bob's page, told by his lobby stream, lists her request, which he
accepts there, Ann's page then listing him among her friends. Ann creates a private
game and invites Bob from the table's "Invite a friend"; his page shows the
invitation (from the lobby stream) and joins the game with its Join. At the table Ann
sends an emote from the picker, and both pages show it, in the recent messages and
as a bubble by her seat; Bob answers with a phrase, which Ann's page shows. The
friends page and the table with its talk have no serious or critical accessibility
violation (axe-core).
"""

from __future__ import annotations

from typing import Any

from tests.browser import SERVED_WITH_A_WORKER
from tests.served import Served
from tests.web.pages import accessible, create, new_page, sign_up, token_of

pytestmark = SERVED_WITH_A_WORKER

SHOWN_MS = 20_000


def signed_up(page: Any, service: Served, name: str) -> None:
    page.goto(f"{service.url}/play/")
    sign_up(page, name)
    page.wait_for_selector("#your-games-title", timeout=SHOWN_MS)


def to_friends(page: Any) -> None:
    page.click("#nav >> text=Friends")
    page.wait_for_selector("#friend-code-title", timeout=SHOWN_MS)


def person(page: Any, listing: str, name: str) -> Any:
    return page.locator(f".people.{listing} .person", has_text=name)


def test_two_friends_meet_by_code_invite_each_other_and_talk_at_the_table(
    service: Served, browser: Any
):
    ann, bob = new_page(browser), new_page(browser)
    signed_up(ann, service, "Ann")
    signed_up(bob, service, "Bob")
    to_friends(bob)
    code = bob.get_attribute(".code[data-code]", "data-code")
    assert code is not None
    assert len(code) == 8
    assert bob.input_value("#friend-link") == f"{service.url}/play/friends/{code}"
    accessible(bob)

    # Ann types his code; his page hears of her request and lists it.
    to_friends(ann)
    ann.fill("#friend-code", f"{code[:4].lower()}-{code[4:]}")
    ann.click(".add-friend button[type=submit]")
    ann.wait_for_selector("text=Friend request sent to Bob.", timeout=SHOWN_MS)
    person(ann, "outgoing", "Bob").wait_for(timeout=SHOWN_MS)
    asking = person(bob, "incoming", "Ann")
    asking.wait_for(timeout=SHOWN_MS)
    asking.locator("text=Accept").click()
    bob.wait_for_selector("text=You and Ann are friends now.", timeout=SHOWN_MS)
    person(bob, "friends", "Ann").wait_for(timeout=SHOWN_MS)
    # Ann's page, told that he accepted, lists him among her friends.
    person(ann, "friends", "Bob").wait_for(timeout=SHOWN_MS)
    bob_id = service.client(token_of(bob)).get("/players/me").body["id"]
    assert ann.locator(f'.people.friends [data-player="{bob_id}"]').count() == 1

    # Ann's private game: she invites Bob from the table, his page shows the
    # invitation, and he joins with it.
    ann.click("a.brand")
    ann.wait_for_selector("#play-now-title", timeout=SHOWN_MS)
    create(ann, bots=0, friends=1)
    ann.wait_for_selector(
        f'#invite-friend option[value="{bob_id}"]', state="attached", timeout=SHOWN_MS
    )
    ann.select_option("#invite-friend", bob_id)
    ann.click('button[data-key="invite-friend"]')
    ann.wait_for_selector("text=Bob is invited.", timeout=SHOWN_MS)
    invitation = bob.locator(".notices .invitation")
    invitation.wait_for(timeout=SHOWN_MS)
    assert "Ann invites you to a game (1 of 2 seats taken)." in invitation.inner_text()
    invitation.locator("text=Join the game").click()
    bob.wait_for_url(ann.url, timeout=SHOWN_MS)
    ann.wait_for_selector('.seat-name:text-is("Bob")', timeout=SHOWN_MS)
    assert bob.locator(".notices .invitation").count() == 0

    # Ann laughs from the picker: both pages show it, listed and by her seat.
    ann.wait_for_selector(
        '.talk-emotes button[data-emote="laugh"]', state="attached", timeout=SHOWN_MS
    )
    ann.click(".talk-picker summary")
    ann.click('.talk-emotes button[data-emote="laugh"]')
    for page in (ann, bob):
        said = page.locator(".talk-list .talk-message.emote", has_text="😂")
        said.wait_for(timeout=SHOWN_MS)
        page.locator(".seat", has_text="Ann").locator(".bubble", has_text="😂").wait_for(
            timeout=SHOWN_MS
        )
    assert ann.inner_text(".talk-message.emote .talk-from") == "You:"
    assert bob.inner_text(".talk-message.emote .talk-from") == "Ann:"

    # Bob answers with a phrase; Ann's page shows it once.
    bob.click(".talk-picker summary")
    bob.click('.talk-phrases button[data-phrase="good_luck"]')
    answer = ann.locator(".talk-list .talk-message.phrase", has_text="Good luck!")
    answer.wait_for(timeout=SHOWN_MS)
    assert answer.locator(".talk-from").inner_text() == "Bob:"
    bob.locator(".talk-list .talk-message.phrase", has_text="Good luck!").wait_for(timeout=SHOWN_MS)
    assert ann.locator(".talk-list .talk-message").count() == 2
    assert bob.locator(".talk-list .talk-message").count() == 2
    accessible(ann)
    assert ann.errors == []
    assert bob.errors == []
