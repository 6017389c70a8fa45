import ast
from pathlib import Path

from django.apps import apps

PROJECT = Path(__file__).resolve().parents[2]
OURS = ("players", "unoservice", "games")


def test_the_players_app_is_installed():
    config = apps.get_app_config("players")
    assert config.name == "players"
    assert config.default_auto_field == "django.db.models.BigAutoField"


def source_of(module: str) -> Path | None:
    path = PROJECT / module.replace(".", "/")
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def imports_of(module: str, source: Path) -> set[str]:
    """The project's modules that `module` imports (by name; a package's too)."""
    package = module if source.name == "__init__.py" else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(ast.parse(source.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in names if name.split(".")[0] in OURS and source_of(name)}


def test_players_depend_on_no_module_of_games_even_through_the_service_package():
    todo = [
        ".".join(path.relative_to(PROJECT).with_suffix("").parts).removesuffix(".__init__")
        for path in (PROJECT / "players").rglob("*.py")
    ]
    assert "players.push.delivery" in todo
    seen: set[str] = set()
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(imports_of(module, source_of(module)))
    assert sorted(name for name in seen if name.split(".")[0] == "games") == []
