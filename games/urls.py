from django.urls import path

from games import api

urlpatterns = [
    path("games", api.GamesView.as_view(), name="games"),
    # Before `games/<id>`, which would take "join" for a game id.
    path("games/join", api.GameJoinByCodeView.as_view(), name="games-join-by-code"),
    path("matchmaking", api.MatchmakingView.as_view(), name="matchmaking"),
    path("matchmaking/cancel", api.MatchmakingCancelView.as_view(), name="matchmaking-cancel"),
    path("games/<str:game_id>", api.GameDetailView.as_view(), name="game"),
    path("games/<str:game_id>/join", api.GameJoinView.as_view(), name="game-join"),
    path("games/<str:game_id>/bots", api.GameBotsView.as_view(), name="game-bots"),
    path("games/<str:game_id>/start", api.GameStartView.as_view(), name="game-start"),
    path("games/<str:game_id>/leave", api.GameLeaveView.as_view(), name="game-leave"),
    path("games/<str:game_id>/resume", api.GameResumeView.as_view(), name="game-resume"),
    path("games/<str:game_id>/rematch", api.GameRematchView.as_view(), name="game-rematch"),
    path("games/<str:game_id>/moves", api.GameMovesView.as_view(), name="game-moves"),
    path("games/<str:game_id>/challenge", api.GameChallengeView.as_view(), name="game-challenge"),
    path("games/<str:game_id>/events", api.GameEventsView.as_view(), name="game-events"),
    path("games/<str:game_id>/stream", api.GameStreamView.as_view(), name="game-stream"),
    path(
        "games/<str:game_id>/stream-ticket",
        api.GameStreamTicketView.as_view(),
        name="game-stream-ticket",
    ),
    path("players/me/stream", api.LobbyStreamView.as_view(), name="lobby-stream"),
    path(
        "players/me/stream-ticket", api.LobbyStreamTicketView.as_view(), name="lobby-stream-ticket"
    ),
    # `players/me` (players.urls, included first) is matched before this takes "me"
    # for an id.
    path("players/<str:player_id>", api.PlayerDetailView.as_view(), name="player"),
    path("players/<str:player_id>/games", api.PlayerGamesView.as_view(), name="player-games"),
    path("games/<str:game_id>/log", api.GameLogView.as_view(), name="game-log"),
    path("games/<str:game_id>/replay", api.GameReplayView.as_view(), name="game-replay"),
]
