from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        from games.live.revoke import on_token_revoked
        from games.services.erasure import on_player_erased
        from players.signals import player_erased, token_revoked

        token_revoked.connect(on_token_revoked, dispatch_uid="games.live.revoke")
        player_erased.connect(on_player_erased, dispatch_uid="games.services.erasure")
