"""The platform package (`unoservice`) under the apps: it imports nothing of games
but where it wires the apps together, and its modules import each other in one
direction. And ratings are read apart from where they are written: what reads them
never loads what moves them."""

from __future__ import annotations

from tests.players.test_app import PROJECT, imports_of, source_of

# Where the platform names the apps: the URL table and the ASGI router.
WIRING = {"unoservice.urls", "unoservice.asgi"}

# What reads ratings (profiles, histories, the leaderboard, a game's `rated`), and
# what writes them (a game's end, an operator's annulment).
RATING_READS = (
    "games.ratings.rules",
    "games.ratings.reads",
    "games.ratings.groups",
    "games.presenters",
    "games.game_words",
    "players.standings",
)
RATING_WRITES = ("games.ratings.writes", "games.ratings.annulment")


def platform_modules() -> list[str]:
    found = []
    for path in (PROJECT / "unoservice").rglob("*.py"):
        parts = path.relative_to(PROJECT).with_suffix("").parts
        if "migrations" not in parts:
            found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return sorted(found)


def platform_imports(module: str) -> set[str]:
    source = source_of(module)
    assert source is not None
    return imports_of(module, source)


def test_the_platform_imports_games_only_where_it_wires_the_apps_together():
    reaching = {
        module: sorted(name for name in platform_imports(module) if name.startswith("games"))
        for module in platform_modules()
        if module not in WIRING
    }
    assert {module: names for module, names in reaching.items() if names} == {}


def test_the_platform_modules_import_each_other_in_no_circle():
    # The package itself is left out: Python runs it before any of its modules (it
    # loads the Celery app, as Celery's Django layout has it), so `from unoservice
    # import metrics` names it without depending on what it loads.
    modules = [module for module in platform_modules() if module != "unoservice"]
    graph = {
        module: {name for name in platform_imports(module) if name in modules and name != module}
        for module in modules
    }
    circles = []
    for start in modules:
        todo, seen = list(graph[start]), set()
        while todo:
            module = todo.pop()
            if module == start:
                circles.append(start)
                break
            if module not in seen:
                seen.add(module)
                todo.extend(graph[module])
    assert circles == []


def reached_from(module: str) -> set[str]:
    """Every module of the project that importing `module` loads, through any chain."""
    todo, seen = [module], set()
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(platform_imports(name))
    return seen


def test_what_reads_ratings_never_imports_what_writes_them():
    reaching = {
        module: sorted(name for name in reached_from(module) if name in RATING_WRITES)
        for module in RATING_READS
    }
    assert {module: names for module, names in reaching.items() if names} == {}
    # The rule bites: the services, which end games, do reach the writes.
    assert "games.ratings.writes" in reached_from("games.services.play")
