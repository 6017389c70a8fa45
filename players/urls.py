from django.urls import path

from players.api import PlayerMeView, PlayersView

urlpatterns = [
    path("players", PlayersView.as_view(), name="players"),
    path("players/me", PlayerMeView.as_view(), name="player-me"),
]
