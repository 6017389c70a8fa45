from django.urls import path

from players.accounts.api import (
    EmailCodesView,
    ExportView,
    IdentitiesView,
    PasswordView,
    SignInMethodsView,
    SignInView,
)
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
    path("players/email-codes", EmailCodesView.as_view(), name="email-codes"),
    path("players/sign-in", SignInView.as_view(), name="sign-in"),
    path("players/sign-in/methods", SignInMethodsView.as_view(), name="sign-in-methods"),
    path("players/me/identities", IdentitiesView.as_view(), name="player-identities"),
    path("players/me/password", PasswordView.as_view(), name="player-password"),
    path("players/me/export", ExportView.as_view(), name="player-export"),
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
