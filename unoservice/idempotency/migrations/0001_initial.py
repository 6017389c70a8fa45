import django.db.models.deletion
from django.db import migrations, models

MODEL = "idempotencyrecord"


def _relabel_content_type(apps, schema_editor, old, new):
    """Keep the model's content type (and the permissions that point at it) rather
    than leave a stale one behind and make a second."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    types = ContentType.objects.using(schema_editor.connection.alias)
    if not types.filter(app_label=new, model=MODEL).exists():
        types.filter(app_label=old, model=MODEL).update(app_label=new)


def content_type_to_idempotency(apps, schema_editor):
    _relabel_content_type(apps, schema_editor, "games", "idempotency")


def content_type_to_games(apps, schema_editor):
    _relabel_content_type(apps, schema_editor, "idempotency", "games")


class Migration(migrations.Migration):
    """IdempotencyRecord, moved here from the games app with its rows: the model
    enters this app's state on the table games created (no database change), then
    the table is renamed to this app's name."""

    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("games", "0009_idempotency_record_to_its_own_app"),
        ("players", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="IdempotencyRecord",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("key", models.CharField(max_length=255)),
                        ("fingerprint", models.CharField(max_length=64)),
                        ("status_code", models.PositiveSmallIntegerField()),
                        ("body", models.JSONField()),
                        ("created_at", models.DateTimeField(auto_now_add=True, db_index=True)),
                        (
                            "player",
                            models.ForeignKey(
                                null=True,
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to="players.player",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "games_idempotencyrecord",
                        "constraints": [
                            models.UniqueConstraint(
                                condition=models.Q(("player__isnull", False)),
                                fields=("player", "key"),
                                name="unique_idempotency_key",
                            ),
                            models.UniqueConstraint(
                                condition=models.Q(("player__isnull", True)),
                                fields=("key",),
                                name="unique_anonymous_idempotency_key",
                            ),
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.AlterModelTable(name="idempotencyrecord", table=None),
        migrations.RunPython(content_type_to_idempotency, content_type_to_games),
    ]
