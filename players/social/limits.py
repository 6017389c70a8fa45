"""The rate of friend requests: each lands in someone else's lobby, so a player
sends a few an hour (the operator's `friend_request` rate), counted on every attempt,
refused ones included, so that ids and codes cannot be tried in bulk."""

from __future__ import annotations

from rest_framework.throttling import SimpleRateThrottle

from unoservice.throttling import PlayerRateThrottle


class FriendRequestThrottle(PlayerRateThrottle):
    """Friend requests per player, whatever they come to."""

    scope = "friend_request"
    # The configured rates themselves, not whatever replaced the players' (tests and
    # load runs lift those).
    THROTTLE_RATES = SimpleRateThrottle.THROTTLE_RATES
