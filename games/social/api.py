"""``GET /players/me/friends``: the caller's friends with their presence and the
games they sit in. It reads games, so it lives with the games: the players app
serves everything else about friends (`players.social.api`) and imports nothing of
games."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from games.social import openapi_text as text
from games.social.selectors import friends_games, game_shown
from games.social.serializers import IN_GAME, OFFLINE, ONLINE, FriendsOut
from players.auth import current_player
from players.social import friends, selectors
from players.social.common import player_ref
from players.social.serializers import request_received_json, request_sent_json
from unoservice import presence
from unoservice.schema import COMMON_HEADERS, error_responses

_ORDER = {IN_GAME: 0, ONLINE: 1, OFFLINE: 2}


class FriendsView(APIView):
    @extend_schema(
        **text.FRIENDS,
        responses={200: FriendsOut, **error_responses(401, 429)},
        parameters=COMMON_HEADERS,
    )
    def get(self, request: Request) -> Response:
        player = current_player(request)
        code = player.friend_code or friends.friend_code_get(player_id=player.pk)
        return Response(
            {
                "friends": friends_json(player.pk),
                "incoming": [
                    request_received_json(r) for r in selectors.requests_received(player.pk)
                ],
                "outgoing": [request_sent_json(r) for r in selectors.requests_sent(player.pk)],
                "code": code,
                "link": friends.friend_link(code),
                "caps": {"friends": friends.MAX_FRIENDS, "outgoing": friends.MAX_PENDING_SENT},
            }
        )


def friends_json(viewer_id: Any) -> list[dict[str, Any]]:
    """The viewer's friends with their presence, in a game first, then online, then
    offline, by name: two queries and one read of the cache, whatever their number."""
    rows = selectors.friendships_of(viewer_id)
    ids = [str(row.friend_id) for row in rows]
    games = friends_games(viewer_id, ids)
    # The lobby's group: no game's, and its spectator counts are not read here.
    online = presence.online(ids)
    listed: list[dict[str, Any]] = []
    for row in rows:
        friend_id = str(row.friend_id)
        theirs = games.get(friend_id)
        if theirs:
            state: dict[str, Any] = {"status": IN_GAME, "game": game_shown(theirs)}
        else:
            state = {"status": ONLINE if friend_id in online else OFFLINE, "game": None}
        listed.append({"player": player_ref(row.friend), "since": row.since, "presence": state})
    listed.sort(
        key=lambda f: (
            _ORDER[f["presence"]["status"]],
            f["player"]["name"].casefold(),
            f["player"]["id"],
        )
    )
    return listed
