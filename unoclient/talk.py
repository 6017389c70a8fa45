"""Table talk in the terminal: what the others say comes as lines of the table's log,
and at any prompt the player may talk instead of answering (the prompt is asked
again): ``say gg`` (a phrase of the catalogue, by its key, its initials, its words or
its number), ``emote laugh``, ``chat <text>`` where the game lets players type. ``say``
or ``emote`` alone lists what there is (docs/api.md, "Table talk")."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Protocol

from unoclient.api import ApiError
from unoclient.render import clock_time

COMMANDS = ("say", "emote", "chat")
HELP = "At any prompt: say gg, emote laugh (say or emote alone lists them)."


class Poster(Protocol):
    def get(self, path: str) -> Any: ...

    def post(self, path: str, body: Any = None) -> Any: ...


def _key(words: str) -> str:
    """A typed key, phrase or code as keys are written: lower case, words joined by _."""
    return "_".join(re.findall(r"[\w]+", words.lower()))


def _initials(code: str) -> str:
    return "".join(word[0] for word in code.split("_") if word)


def find(entries: list[dict[str, str]], typed: str) -> dict[str, str] | None:
    """The entry of the catalogue `typed` names: its number, key, words or initials
    (initials only when no other entry shares them)."""
    typed = typed.strip()
    if typed.isdigit() and 1 <= int(typed) <= len(entries):
        return entries[int(typed) - 1]
    key = _key(typed)
    for entry in entries:
        if (key and key in (entry["code"], _key(entry["text"]))) or typed == entry["text"]:
            return entry
    by_initials = [e for e in entries if _initials(e["code"]) == key]
    return by_initials[0] if len(by_initials) == 1 else None


def refusal(error: ApiError) -> str:
    """Why a message was not sent, in the player's words."""
    details = error.details or {}
    if error.code == "rate_limited" or error.status == 429:
        wait = details.get("retry_after")
        return f"too many messages at once; wait {wait} s" if wait else "too many messages at once"
    if error.code == "talk_muted":
        until = details.get("until")
        reason = details.get("reason")
        line = "the staff muted your table talk"
        line += f" until {clock_time(until)}" if until else ""
        return line + (f" ({reason})" if reason else "")
    if error.code == "free_text_off":
        return "typed messages are off at this table; use say or emote"
    return error.message


class TableTalk:
    """The talk of one table: what the player types, and each message shown once.
    `me()` is the player's seat (messages from it read "You")."""

    def __init__(
        self, api: Poster, game_id: str, say: Callable[[str], None], me: Callable[[], int | None]
    ) -> None:
        self.api = api
        self.game_id = game_id
        self.say = say
        self.me = me
        self.catalogue: dict[str, list[dict[str, str]]] | None = None
        self.shown: set[int] = set()

    # -- what comes ------------------------------------------------------------------------

    def show(self, message: dict[str, Any]) -> None:
        """A line of the log for `message`, unless it was shown already."""
        said = message.get("id")
        if isinstance(said, int):
            if said in self.shown:
                return
            self.shown.add(said)
        self.say(self.line(message))

    def line(self, message: dict[str, Any]) -> str:
        sender = message.get("from") or {}
        mine = not message.get("spectator") and message.get("seat") == self.me()
        who = "You" if mine else str(sender.get("name") or "Someone")
        if message.get("spectator"):
            who += " (watching)"
        words = str(message.get("text") or message.get("code") or "")
        if message.get("kind") == "emote" and message.get("code"):
            return f"{who}: {words} ({message['code']})"
        says = "say" if mine else "says"
        if message.get("kind") == "text":
            return f'{who} {says} "{words}"'
        return f"{who} {says}: {words}"

    # -- what the player types -------------------------------------------------------------

    def command(self, typed: str) -> bool:
        """Handle `typed` when it is a talk command (True); anything else is left to
        the prompt (False)."""
        verb, _, rest = typed.strip().partition(" ")
        verb = verb.lower()
        if verb not in COMMANDS:
            return False
        rest = rest.strip()
        if verb == "chat":
            if rest:
                self.send({"text": rest})
            else:
                self.say("(chat what? Type chat and your message.)")
            return True
        catalogue = self.load()
        if catalogue is None:
            return True
        entries = catalogue["phrases" if verb == "say" else "emotes"]
        field = "phrase" if verb == "say" else "emote"
        if not rest:
            self.list(verb, entries)
            return True
        entry = find(entries, rest)
        if entry is None:
            self.say(f"(No {field} {rest!r}. Type {verb} alone to list them.)")
        else:
            self.send({field: entry["code"]})
        return True

    def load(self) -> dict[str, list[dict[str, str]]] | None:
        if self.catalogue is None:
            try:
                self.catalogue = dict(self.api.get("/talk/catalogue"))
            except ApiError as error:
                self.say(f"(Could not read the phrases: {error.message})")
                return None
        return self.catalogue

    def list(self, verb: str, entries: list[dict[str, str]]) -> None:
        if verb == "say":
            shown = ", ".join(
                f"{n}. {e['code']} ({_initials(e['code'])}) {e['text']}"
                if "_" in e["code"]
                else f"{n}. {e['code']} {e['text']}"
                for n, e in enumerate(entries, start=1)
            )
            self.say(f"Phrases (say KEY): {shown}")
        else:
            shown = ", ".join(f"{e['code']} {e['text']}" for e in entries)
            self.say(f"Emotes (emote KEY): {shown}")

    def send(self, body: dict[str, str]) -> None:
        try:
            message = self.api.post(f"/games/{self.game_id}/messages", body)
        except ApiError as error:
            self.say(f"(Not sent: {refusal(error)}.)")
            return
        if isinstance(message, dict):
            self.show(message)
