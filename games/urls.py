from django.urls import path

from games.api import invites, lobby, log, play, profiles, streams, talk

# Django tries the patterns in order, each a regular expression: a move, the API's most
# frequent request that Django serves (view reads are answered before it,
# games.live.reads), finds its view first.
urlpatterns = [
    path("games/<str:game_id>/moves", play.GameMovesView.as_view(), name="game-moves"),
    path("games/<str:game_id>/challenge", play.GameChallengeView.as_view(), name="game-challenge"),
    path("games", lobby.GamesView.as_view(), name="games"),
    # Before `games/<id>`, which would take "join" for a game id.
    path("games/join", lobby.GameJoinByCodeView.as_view(), name="games-join-by-code"),
    path("matchmaking", lobby.MatchmakingView.as_view(), name="matchmaking"),
    path("matchmaking/cancel", lobby.MatchmakingCancelView.as_view(), name="matchmaking-cancel"),
    path("games/<str:game_id>", play.GameDetailView.as_view(), name="game"),
    path("games/<str:game_id>/join", lobby.GameJoinView.as_view(), name="game-join"),
    path("games/<str:game_id>/bots", lobby.GameBotsView.as_view(), name="game-bots"),
    path("games/<str:game_id>/start", lobby.GameStartView.as_view(), name="game-start"),
    path("games/<str:game_id>/seating", lobby.GameSeatingView.as_view(), name="game-seating"),
    path("games/<str:game_id>/leave", lobby.GameLeaveView.as_view(), name="game-leave"),
    path("games/<str:game_id>/resume", play.GameResumeView.as_view(), name="game-resume"),
    path("games/<str:game_id>/rematch", lobby.GameRematchView.as_view(), name="game-rematch"),
    path("games/<str:game_id>/invites", invites.GameInvitesView.as_view(), name="game-invites"),
    path("games/<str:game_id>/messages", talk.GameMessagesView.as_view(), name="game-messages"),
    path("games/<str:game_id>/reports", talk.GameReportsView.as_view(), name="game-reports"),
    path("talk/catalogue", talk.CatalogueView.as_view(), name="talk-catalogue"),
    path("games/<str:game_id>/events", log.GameEventsView.as_view(), name="game-events"),
    path("games/<str:game_id>/stream", streams.GameStreamView.as_view(), name="game-stream"),
    path(
        "games/<str:game_id>/stream-ticket",
        streams.GameStreamTicketView.as_view(),
        name="game-stream-ticket",
    ),
    path("games/<str:game_id>/log", log.GameLogView.as_view(), name="game-log"),
    path("games/<str:game_id>/replay", log.GameReplayView.as_view(), name="game-replay"),
]

# Under the same prefix, after players.urls (unoservice.urls): `players/me` is matched
# there before these would take "me" for a player's id.
player_urlpatterns = [
    path("players/me/stream", streams.LobbyStreamView.as_view(), name="lobby-stream"),
    path(
        "players/me/stream-ticket",
        streams.LobbyStreamTicketView.as_view(),
        name="lobby-stream-ticket",
    ),
    path("players/<str:player_id>", profiles.PlayerDetailView.as_view(), name="player"),
    path("players/<str:player_id>/games", profiles.PlayerGamesView.as_view(), name="player-games"),
]
