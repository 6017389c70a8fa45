from django.urls import path

from players.api import (
    LeaderboardView,
    PlayerMeView,
    PlayerSessionsView,
    PlayerSessionView,
    PlayersView,
    PlayerTokenView,
)
from players.push.api import DevicesView, DeviceView, NotificationSettingsView, PushConfigView

urlpatterns = [
    path("players", PlayersView.as_view(), name="players"),
    path("players/me", PlayerMeView.as_view(), name="player-me"),
    path("players/me/token", PlayerTokenView.as_view(), name="player-token"),
    path("players/me/sessions", PlayerSessionsView.as_view(), name="player-sessions"),
    path(
        "players/me/sessions/<str:session_id>",
        PlayerSessionView.as_view(),
        name="player-session",
    ),
    path("players/me/devices", DevicesView.as_view(), name="player-devices"),
    path("players/me/devices/<str:device_id>", DeviceView.as_view(), name="player-device"),
    path(
        "players/me/notifications",
        NotificationSettingsView.as_view(),
        name="player-notifications",
    ),
    path("push/config", PushConfigView.as_view(), name="push-config"),
    path("leaderboard", LeaderboardView.as_view(), name="leaderboard"),
]
