from django.apps import AppConfig


class PlayersConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "players"
    verbose_name = "Players"

    def ready(self) -> None:
        # Registers the push settings' system checks.
        from players.push import checks  # noqa: F401
        from players.signals import player_erased
        from players.social.erasure import on_player_erased

        # A deleted account drops out of friends, requests, blocks and mutes.
        player_erased.connect(on_player_erased, dispatch_uid="players.social.erasure")
