from django.urls import path

from players.api import LeaderboardView, PlayerMeView, PlayersView, PlayerTokenView

urlpatterns = [
    path("players", PlayersView.as_view(), name="players"),
    path("players/me", PlayerMeView.as_view(), name="player-me"),
    path("players/me/token", PlayerTokenView.as_view(), name="player-token"),
    path("leaderboard", LeaderboardView.as_view(), name="leaderboard"),
]
