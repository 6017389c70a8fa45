from django.apps import apps


def test_the_players_app_is_installed():
    config = apps.get_app_config("players")
    assert config.name == "players"
    assert config.default_auto_field == "django.db.models.BigAutoField"
