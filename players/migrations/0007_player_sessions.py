# Each device signs in with a token of its own: a player's one token becomes their
# first session.

import uuid

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


def tokens_to_sessions(apps, schema_editor):
    Player = apps.get_model("players", "Player")
    PlayerSession = apps.get_model("players", "PlayerSession")
    now = django.utils.timezone.now()
    PlayerSession.objects.bulk_create(
        (
            PlayerSession(
                player_id=player_id,
                token_hash=token_hash,
                created_at=created_at,
                last_used_at=now,
            )
            for player_id, token_hash, created_at in Player.objects.values_list(
                "id", "token_hash", "created_at"
            ).iterator()
        ),
        batch_size=1000,
    )


def sessions_to_tokens(apps, schema_editor):
    # Back to one token a player: the one last used works, the others stop.
    Player = apps.get_model("players", "Player")
    PlayerSession = apps.get_model("players", "PlayerSession")
    for player in Player.objects.iterator():
        session = PlayerSession.objects.filter(player=player).order_by("-last_used_at").first()
        player.token_hash = session.token_hash if session else uuid.uuid4().hex * 2
        player.save(update_fields=["token_hash"])


class Migration(migrations.Migration):
    dependencies = [
        ("players", "0006_rating_met"),
    ]

    operations = [
        migrations.CreateModel(
            name="PlayerSession",
            fields=[
                (
                    "id",
                    models.UUIDField(
                        default=uuid.uuid4, editable=False, primary_key=True, serialize=False
                    ),
                ),
                ("token_hash", models.CharField(editable=False, max_length=64, unique=True)),
                ("name", models.CharField(blank=True, default="", max_length=64)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("last_used_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("network", models.CharField(blank=True, default="", max_length=64)),
                (
                    "player",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="sessions",
                        to="players.player",
                    ),
                ),
            ],
            options={
                "ordering": ["-last_used_at", "id"],
            },
        ),
        migrations.AlterField(
            model_name="player",
            name="token_hash",
            field=models.CharField(editable=False, max_length=64, null=True),
        ),
        migrations.RunPython(tokens_to_sessions, sessions_to_tokens),
        migrations.RemoveField(
            model_name="player",
            name="token_hash",
        ),
    ]
