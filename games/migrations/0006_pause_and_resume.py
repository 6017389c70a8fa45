from django.db import migrations, models


def mark_seats_lost_to_timeouts(apps, schema_editor):
    """A running game's seat held by a bot for a player who never left it went to
    the bot through timeouts: its player may take it back."""
    Seat = apps.get_model("games", "Seat")
    Event = apps.get_model("games", "Event")
    taken = Seat.objects.filter(
        game__status="playing", player__isnull=False, bot__isnull=False
    ).select_related("game")
    for seat in taken:
        left = Event.objects.filter(game=seat.game, type="player_left", seat=seat.seat).exists()
        if not left:
            seat.timed_out = True
            seat.save(update_fields=["timed_out"])


def forget_stored_signups(apps, schema_editor):
    """Records without a player answered sign-ups, and each holds a bearer token:
    no token may stay in a stored answer."""
    IdempotencyRecord = apps.get_model("games", "IdempotencyRecord")
    IdempotencyRecord.objects.filter(player__isnull=True).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0005_game_moves"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="paused_until",
            field=models.DateTimeField(blank=True, db_index=True, null=True),
        ),
        migrations.AddField(
            model_name="seat",
            name="timed_out",
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(mark_seats_lost_to_timeouts, migrations.RunPython.noop),
        migrations.RunPython(forget_stored_signups, migrations.RunPython.noop),
    ]
