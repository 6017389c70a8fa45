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


# The parts of games that must stand in layers: the services under the live streams
# and the serializers (which name the services' limits), the serializers under the
# live streams. A circle through any of them is what made each load the others.
LAYERED_PARTS = ("games.services", "games.live", "games.serializers")


def games_part(module: str) -> str:
    """The part of games that `module` belongs to: its package under games, or itself."""
    return ".".join(module.split(".")[:2])


def games_graph() -> dict[str, set[str]]:
    """Which parts of games import which, every import counted (inside functions and
    for type checking too: either would still tie the parts together)."""
    graph: dict[str, set[str]] = {}
    for path in (PROJECT / "games").rglob("*.py"):
        parts = path.relative_to(PROJECT).with_suffix("").parts
        if "migrations" in parts:
            continue
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        if module == "games":  # the app's package, run before any of its modules
            continue
        source = source_of(module)
        assert source is not None
        part = games_part(module)
        imported = {games_part(name) for name in imports_of(module, source)}
        graph.setdefault(part, set()).update(
            name for name in imported if name.startswith("games.") and name != part
        )
    return graph


def circle_through(start: str, graph: dict[str, set[str]]) -> list[str] | None:
    """A path of imports from `start` back to it, or None."""
    todo, seen = [[start, name] for name in graph.get(start, ())], set()
    while todo:
        path = todo.pop()
        if path[-1] == start:
            return path
        if path[-1] not in seen:
            seen.add(path[-1])
            todo.extend([*path, name] for name in graph.get(path[-1], ()))
    return None


def test_no_import_circle_runs_through_the_services_the_live_streams_or_the_serializers():
    graph = games_graph()
    assert {part for part in LAYERED_PARTS if part in graph} == set(LAYERED_PARTS)
    circles = {part: circle_through(part, graph) for part in LAYERED_PARTS}
    assert {part: path for part, path in circles.items() if path} == {}


def test_the_services_import_neither_the_live_streams_nor_the_serializers():
    assert games_graph()["games.services"] & {"games.live", "games.serializers"} == set()
