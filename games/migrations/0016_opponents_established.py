from django.db import migrations

# As games.results and players.standings had them when this was written.
MIN_GAMES_TO_RANK = 5
MIN_OPPONENTS_TO_RANK = 3
BOT_KEY_PREFIX = "bot:"


def meet_established_only(apps, schema_editor):
    """Each rating's human opponents (games.results.meet) worked out again from the
    rated results, in the order the games finished, counting only the opponents who
    had MIN_GAMES_TO_RANK rated games before the game: the rule the games apply from
    now on. Nothing else of a rating changes."""
    Result = apps.get_model("games", "Result")
    Rating = apps.get_model("players", "Rating")
    rows = (
        Result.objects.filter(rated=True)
        .order_by("finished_at", "game_id", "seat")
        .values_list("game_id", "key")
    )
    tables = {}
    for game_id, key in rows.iterator(chunk_size=2000):
        tables.setdefault(game_id, []).append(key)
    played = {}
    met = {}
    for keys in tables.values():
        seated = list(dict.fromkeys(keys))
        humans = [k for k in seated if not k.startswith(BOT_KEY_PREFIX)]
        established = [k for k in humans if played.get(k, 0) >= MIN_GAMES_TO_RANK]
        for key in seated:
            played[key] = played.get(key, 0) + 1
            known = met.setdefault(key, [])
            for other in established:
                if other != key and other not in known and len(known) < MIN_OPPONENTS_TO_RANK:
                    known.append(other)
    Rating.objects.exclude(opponents="", opponents_met=0).update(opponents="", opponents_met=0)
    for key, known in met.items():
        if known:
            Rating.objects.filter(key=key).update(
                opponents=" ".join(known), opponents_met=len(known)
            )


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0015_results_forfeits_repeats_and_annulments"),
    ]

    operations = [
        migrations.RunPython(meet_established_only, migrations.RunPython.noop, elidable=True),
    ]
