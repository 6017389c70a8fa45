"""What the players' endpoints say to client developers in the OpenAPI schema: each
operation's summary and description, and the meaning of its error answers where it
says more than `unoservice.schema` does."""

from __future__ import annotations

from players import sessions, standings
from unoservice.schema import Described

SIGN_UP = Described(
    summary="Sign up",
    description="Creates a guest player, signed in on this device (`device`: what "
    "the player's session list calls it, optional), and answers with the device's "
    "token, once: only a hash of it is kept, so a lost token cannot be recovered; a "
    "guest keeps its account by linking an email address or a Google or Apple account "
    "(POST /players/me/identities), and signs in with it on any device. "
    "Send the token as `Authorization: Bearer <token>` with every other request. No "
    "token is needed here; sign-ups are limited per client address. The answer is "
    "never kept for an Idempotency-Key: the same key signs up a new player.",
)
SIGN_UP_ERRORS = {
    409: "idempotency_key_in_use",
    422: "idempotency_key_reused",
}

WHO_AM_I = Described(
    summary="Who am I",
    description="The player the token belongs to, with their statistics (games "
    "played and won, rounds won and points scored), their rating and their rank on "
    "the leaderboard.",
)

RENAME = Described(
    summary="Change my name",
    description='A body of {"name": ...} (leave it out and nothing changes): the '
    "caller is known by the new name from now on: in games they join "
    "and on the leaderboard (seats already taken keep the name they were taken with). "
    "The same rules as at sign-up: 1-32 printable characters, not mixing scripts with "
    "letters that look alike. Others tell players of one name apart by their tags.",
)

SESSIONS = Described(
    summary="My sessions",
    description="Each device signed in as the caller, with its own token: what the "
    "device is called, when it signed in, when it was last used (to within "
    f"{sessions.TOUCH_SECONDS // 60} minutes) and the network it was last used from "
    "(an IPv4 address, or an IPv6 /64). `current` marks the caller's. The one used "
    f"last comes first; at most {sessions.MAX_SESSIONS} (signing in on one more "
    "device signs out the one used longest ago); one unused for SESSION_IDLE_DAYS "
    "(90 days unless the operator says otherwise) is expired and not listed.",
)

SIGN_OUT_SESSION = Described(
    summary="Sign a device out",
    description="Ends one of the caller's sessions, the caller's own included: its "
    "token stops working at once (401), its unused stream tickets are refused, and "
    "the streams opened with it or its tickets end within a moment, on every server. "
    "The other devices stay signed in.",
)
SIGN_OUT_SESSION_ERRORS = {404: "not_found: no such session of the caller's"}

NEW_TOKEN = Described(
    summary="Sign out everywhere: a new token",
    description="Signs every device of the caller out, and this one in again with a "
    "new token, answered once (only a hash of it is kept). Every old token stops "
    "working at once: requests with them are 401, their unused stream tickets are "
    "refused, and the streams opened with them or their tickets end within a moment, "
    "on every server. No body. The answer is "
    "never kept for an Idempotency-Key (it holds a credential): a retry with the "
    "same key, sent with the old token, is 401. Of requests sent with one token at "
    "once, exactly one replaces it (200); the others are 401 not_authenticated, as "
    "the token they name was replaced.",
)
NEW_TOKEN_ERRORS = {
    400: "invalid_request: a malformed Idempotency-Key",
    401: "not_authenticated: the token is unknown, or was replaced by a request for a "
    "new token sent with it at the same time",
}

LEADERBOARD = Described(
    summary="The leaderboard",
    description="Players and bot strategies with the record: at least "
    f"{standings.MIN_GAMES_TO_RANK} rated games, against at least "
    f"{standings.MIN_OPPONENTS_TO_RANK} different human opponents (players an "
    "operator hid are left out), by their rating's ordinal (mu - 3 sigma), best "
    "first, 50 a page. Equal ordinals share a rank.",
)
LEADERBOARD_ERRORS = {404: "not_found: no such page"}
