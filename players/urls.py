from django.urls import path

from players.api import LeaderboardView, PlayerMeView, PlayersView

urlpatterns = [
    path("players", PlayersView.as_view(), name="players"),
    path("players/me", PlayerMeView.as_view(), name="player-me"),
    path("leaderboard", LeaderboardView.as_view(), name="leaderboard"),
]
