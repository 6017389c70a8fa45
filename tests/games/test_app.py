from django.apps import apps


def test_the_games_app_is_installed():
    config = apps.get_app_config("games")
    assert config.name == "games"
    assert config.default_auto_field == "django.db.models.BigAutoField"
