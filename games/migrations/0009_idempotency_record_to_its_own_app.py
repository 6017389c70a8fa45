from django.db import migrations


class Migration(migrations.Migration):
    """IdempotencyRecord moves to the `idempotency` app: it leaves this app's state
    only. Its table and rows stay; idempotency's 0001_initial takes them over."""

    dependencies = [
        ("games", "0008_heartbeat"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="IdempotencyRecord")],
            database_operations=[],
        ),
    ]
