"""What the list of friends says to client developers in the OpenAPI schema."""

from __future__ import annotations

from players.social import friends
from unoservice.schema import Described

FRIENDS = Described(
    summary="My friends",
    description="The caller's friends, each with when they became friends and their "
    "presence: in_game (seated in a waiting or running game, with its id when that "
    "game is public, the caller plays in it, or the caller was invited to it), online "
    "(seen in the last half minute) or offline; those in a game first, then those "
    "online, then the others, by name. Also the friend requests waiting for the "
    "caller's answer (`incoming`) and the caller's waiting for theirs (`outgoing`), "
    "the caller's friend code and its link, and the caps: "
    f"{friends.MAX_FRIENDS} friends, {friends.MAX_PENDING_SENT} requests waiting.",
)
