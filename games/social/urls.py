from django.urls import path

from games.social.api import FriendsView

urlpatterns = [
    path("players/me/friends", FriendsView.as_view(), name="player-friends"),
]
