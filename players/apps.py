from django.apps import AppConfig


class PlayersConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "players"
    verbose_name = "Players"

    def ready(self) -> None:
        # Registers the push settings' system checks.
        from players.push import checks  # noqa: F401
