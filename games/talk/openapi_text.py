"""What the table talk endpoints say to client developers in the OpenAPI schema."""

from __future__ import annotations

from unoservice.schema import Described

# As the other game endpoints say them.
HIDDEN = (
    "not_found: no such game, or a private game you are not among the players of, "
    "without its invite code as `code`"
)
WRONG_CODES = (
    "rate_limited: too many requests, or too many wrong invite codes from you or your address"
)

CATALOGUE = Described(
    summary="The quick phrases and emotes",
    description="Every quick phrase and emote a table takes: the key a client sends "
    "(`code`) and what every reader is shown (`text`). The list is fixed; a client may "
    "show the phrases in its own language by their key. No token needed.",
)

SEND_MESSAGE = Described(
    summary="Say something at a table",
    description="Sends one message to everyone at the game's table and its spectators: "
    'exactly one of `{"phrase": key}`, `{"emote": key}` (keys of the catalogue) or '
    '`{"text": "..."}`. Players who hold a seat may say all three; anyone else who may '
    "watch the game (a private game's spectator sends its invite code as `code`) sends "
    "emotes only. Free text is taken only at tables whose host allowed it "
    "(`free_text` in the view), at most 200 characters, and readers see it with rude "
    "words masked. Answers with the message as readers get it; live streams of the game "
    "carry it as a `message` frame. A message changes nothing of the game: not its "
    "version, not its log. At most 5 messages per 10 seconds per player and table (the "
    "operator may change both); beyond, 429 with Retry-After.",
)
SEND_MESSAGE_ERRORS = {
    400: "invalid_request: not exactly one of phrase, emote or text, a key not in the "
    "catalogue, or text that is empty, too long or not printable (`details.fields` "
    "names the field)",
    403: "forbidden: a spectator sends emotes only; free_text_off: the host allowed "
    "phrases and emotes only; talk_muted: staff muted the caller (`details.until`, "
    "`details.reason`)",
    404: HIDDEN,
    409: "wrong_phase: the game was abandoned; or idempotency_key_in_use",
    422: "idempotency_key_reused: this Idempotency-Key was sent with another request",
    429: f"{WRONG_CODES}, or too many messages at this table for now",
}

READ_MESSAGES = Described(
    summary="Read a table's messages",
    description="The last 50 messages said at the table after `after` (the id of the "
    "last one you have), oldest first, as you may read them: without messages from "
    "players you block, who block you or whose table talk you muted, nor spectators' "
    "emotes if you hide those. Anyone who may watch the game may read. Messages are "
    "kept 7 days.",
)
READ_MESSAGES_ERRORS = {
    400: "invalid_request: `after` is not a whole number",
    404: HIDDEN,
    429: WRONG_CODES,
}

REPORT = Described(
    summary="Report a message or a player",
    description="Tells staff about a message said at this table (`message`: its id) or "
    "about a player of it (`player`: who sits or sat at the table, or said something "
    "there), with a `reason` (abuse, spam, cheating, name or other) and an optional "
    "`note`. What was said around the message is kept with the report. The same message "
    "reported again by you answers 200 with the same report; so does a player you "
    "reported at this game while that report is open. At most 20 reports per hour.",
)
REPORT_ERRORS = {
    400: "invalid_request: not exactly one of message or player, an unknown reason, a "
    "note that is too long, or a report of yourself",
    404: f"{HIDDEN}; or no such message or player at this table",
    409: "idempotency_key_in_use",
    422: "idempotency_key_reused: this Idempotency-Key was sent with another request",
    429: f"{WRONG_CODES}, or too many reports",
}
