from django.urls import path

from players.social.api import (
    BlocksView,
    BlockView,
    FriendCodeView,
    FriendRequestAcceptView,
    FriendRequestDeclineView,
    FriendRequestsView,
    FriendRequestView,
    FriendView,
    TableTalkMuteView,
    TableTalkView,
)

# GET /players/me/friends, which reads games, is served by the games app
# (games.social.urls).
urlpatterns = [
    path("players/me/friend-code", FriendCodeView.as_view(), name="player-friend-code"),
    path("players/me/friend-requests", FriendRequestsView.as_view(), name="friend-requests"),
    path(
        "players/me/friend-requests/<str:player_id>",
        FriendRequestView.as_view(),
        name="friend-request",
    ),
    path(
        "players/me/friend-requests/<str:player_id>/accept",
        FriendRequestAcceptView.as_view(),
        name="friend-request-accept",
    ),
    path(
        "players/me/friend-requests/<str:player_id>/decline",
        FriendRequestDeclineView.as_view(),
        name="friend-request-decline",
    ),
    path("players/me/friends/<str:player_id>", FriendView.as_view(), name="friend"),
    path("players/me/blocks", BlocksView.as_view(), name="player-blocks"),
    path("players/me/blocks/<str:player_id>", BlockView.as_view(), name="player-block"),
    path("players/me/table-talk", TableTalkView.as_view(), name="player-table-talk"),
    path(
        "players/me/table-talk/muted/<str:player_id>",
        TableTalkMuteView.as_view(),
        name="player-table-talk-mute",
    ),
]
