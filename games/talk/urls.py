from django.urls import URLPattern, path

from games.talk import api

urlpatterns: list[URLPattern] = [
    path("talk/catalogue", api.CatalogueView.as_view(), name="talk-catalogue"),
    path("games/<str:game_id>/messages", api.GameMessagesView.as_view(), name="game-messages"),
    path("games/<str:game_id>/reports", api.GameReportsView.as_view(), name="game-reports"),
]
