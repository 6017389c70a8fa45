"""What the friends, blocks and table-talk endpoints say to client developers in the
OpenAPI schema."""

from __future__ import annotations

from players.social import blocks, friends, mutes
from unoservice import codes
from unoservice.schema import Described

HIDDEN = (
    "A player who does not exist, deleted their account, was disabled, or blocks the "
    "caller or is blocked by them is answered alike: 404 not_found."
)

FRIEND_CODE = Described(
    summary="My friend code",
    description=f"The caller's friend code ({codes.CODE_LENGTH} characters) and the web "
    "client's link to it: another player who types the code, or follows the link, "
    "sends the caller a friend request. The code is drawn the first time it is asked "
    "for, and stays until the caller asks for a new one.",
)

FRIEND_CODE_NEW = Described(
    summary="A new friend code",
    description="Draws a new friend code for the caller: the old one stops working at "
    "once (requests already sent with it stay). No body. 201 with the new code and "
    "its link.",
)
FRIEND_CODE_NEW_ERRORS = {
    400: "invalid_request: a malformed Idempotency-Key",
    409: "idempotency_key_in_use",
    422: "idempotency_key_reused",
}

FRIEND_REQUEST = Described(
    summary="Ask a player to be friends",
    description="Sends a friend request to `player` (an id) or to the player whose "
    "friend `code` it is (case, spaces and hyphens do not matter). 201 with the "
    "player and `status` requested; the player's lobby streams hear `friend_request`. "
    "When that player had asked the caller already, this accepts their request "
    "instead: 200 with `status` friends, and they hear `friend_accepted`. Already "
    "friends, or asked already: 200, and nothing changes. " + HIDDEN + " A player "
    f"has at most {friends.MAX_FRIENDS} friends and {friends.MAX_PENDING_SENT} "
    "requests waiting for an answer. Requests are limited per player (a few an "
    "hour), every attempt counted, refused ones included.",
)
FRIEND_REQUEST_ERRORS = {
    400: "invalid_request: not exactly one of player and code, a malformed id or code, "
    "or the caller's own; a malformed Idempotency-Key",
    404: "not_found: no such player or friend code (or the player is hidden: deleted, "
    "disabled, or blocked either way)",
    409: f"too_many_friends: either player has {friends.MAX_FRIENDS} friends; "
    f"too_many_friend_requests: the caller has {friends.MAX_PENDING_SENT} requests "
    "waiting; idempotency_key_in_use",
    422: "idempotency_key_reused",
    429: "rate_limited: too many friend requests; wait as many seconds as Retry-After says",
}

ACCEPT = Described(
    summary="Accept a friend request",
    description="Accepts the friend request `player_id` sent the caller: they are "
    "friends from now on, and the sender's lobby streams hear `friend_accepted`. "
    "No body; 200 with the player and `status` friends.",
)
ACCEPT_ERRORS = {
    400: "invalid_request: a malformed Idempotency-Key",
    404: "not_found: no friend request from this player",
    409: f"too_many_friends: either player has {friends.MAX_FRIENDS} friends; "
    "idempotency_key_in_use",
    422: "idempotency_key_reused",
}

DECLINE = Described(
    summary="Decline a friend request",
    description="Declines the friend request `player_id` sent the caller. The sender "
    "is not told; their request simply goes. No body; 204.",
)
DECLINE_ERRORS = {
    400: "invalid_request: a malformed Idempotency-Key",
    404: "not_found: no friend request from this player",
    409: "idempotency_key_in_use",
    422: "idempotency_key_reused",
}

CANCEL = Described(
    summary="Take back my friend request",
    description="Cancels the caller's friend request to `player_id`, which no longer "
    "shows in their list. 204.",
)
CANCEL_ERRORS = {404: "not_found: no friend request of the caller's to this player"}

UNFRIEND = Described(
    summary="End a friendship",
    description="The caller and `player_id` are no longer friends, on both sides; the "
    "other is not told. 204.",
)
UNFRIEND_ERRORS = {404: "not_found: this player is not the caller's friend"}

BLOCKS = Described(
    summary="Players I block",
    description="The players the caller blocks, the latest first, each with when, and "
    f"`cap`, how many one may block ({blocks.MAX_BLOCKS}).",
)

BLOCK = Described(
    summary="Block a player",
    description="The caller blocks `player_id`: their friendship and any friend "
    "requests between them, either way, end; from now on neither can find the other "
    "for a friend request or an invite, quick match never seats them together, "
    "neither can join a game the other sits in, and no table talk of one reaches the "
    "other. The blocked player is not told. Blocking again changes nothing. 204.",
)
BLOCK_ERRORS = {
    400: "invalid_request: the caller's own id",
    404: "not_found: no such player",
    409: f"too_many_blocks: the caller blocks {blocks.MAX_BLOCKS} players already",
}

UNBLOCK = Described(
    summary="Unblock a player",
    description="The caller no longer blocks `player_id` (a friendship the block ended "
    "stays ended). Unblocking a player who is not blocked changes nothing. 204.",
)
UNBLOCK_ERRORS = {404: "not_found: a malformed player id"}

TABLE_TALK = Described(
    summary="My table-talk preferences",
    description="Whether the caller hides spectators' emotes at the tables they read, "
    "and the players whose table talk they muted (the latest first). Players the "
    f"caller blocks are hidden as well, without being listed here. At most "
    f"{mutes.MAX_MUTES} mutes.",
)

TABLE_TALK_CHANGE = Described(
    summary="Change my table-talk preferences",
    description='A body of {"hide_spectator_emotes": true or false} (leave it out and '
    "nothing changes): whether spectators' emotes reach the caller at every table. "
    "200 with the preferences, as read.",
)

MUTE = Described(
    summary="Mute a player's table talk",
    description="No table talk of `player_id` reaches the caller from now on, at any "
    "table; nothing else changes, and the muted player is not told. Muting again "
    f"changes nothing. At most {mutes.MAX_MUTES} players. 204.",
)
MUTE_ERRORS = {
    400: "invalid_request: the caller's own id",
    404: "not_found: no such player",
    409: f"too_many_mutes: the caller mutes {mutes.MAX_MUTES} players already",
}

UNMUTE = Described(
    summary="Unmute a player's table talk",
    description="The caller reads `player_id`'s table talk again (unless a block keeps "
    "it away). Unmuting a player who is not muted changes nothing. 204.",
)
UNMUTE_ERRORS = {404: "not_found: a malformed player id"}

PLAYER_ID = "the other player's id (a UUID)"
