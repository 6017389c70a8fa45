"""Hand-built SQL for the statements every request or move runs: the token lookup,
the game row's locking select, the events' INSERT and the game's UPDATE.

On that path, compiling the ORM's query costs more CPU than PostgreSQL spends
running it. These helpers send the same statements, with the SQL text, the columns
and the value converters worked out once per model and per database connection, so
that a call costs little more than preparing its parameters. They run on the default
database, inside the caller's transaction, and write and read exactly what the ORM
would (`tests/unoservice/test_fastsql.py`). Each one's docstring gives its measured
gain: the CPU per call of the ORM call it replaces over its own, on PostgreSQL
(``python -m bench.fastsql``).

Anything off the hot path should use the ORM.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable, Sequence
from typing import Any, NamedTuple, TypeVar

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, Model

M = TypeVar("M", bound=Model)

# An SQL expression evaluated once by an UPDATE, with its parameters: e.g.
# ("pg_notify(%s, %s)", [channel, payload]) sends a notification with the update.
Extra = tuple[str, Sequence[object]]

# What each statement needs besides its parameters, per connection: the converters
# are bound to the connection's backend, and each thread has its own connection.
_plans: weakref.WeakKeyDictionary[BaseDatabaseWrapper, dict[Hashable, Any]] = (
    weakref.WeakKeyDictionary()
)


def _plan(db: BaseDatabaseWrapper, key: Hashable, build: Callable[[], Any]) -> Any:
    plans = _plans.get(db)
    if plans is None:
        plans = _plans[db] = {}
    plan = plans.get(key)
    if plan is None:
        plan = plans[key] = build()
    return plan


def _concrete(model: type[Model], name: str) -> Field[Any, Any]:
    field = model._meta.get_field(name)  # a field's name or its attname (`host_id`)
    if not isinstance(field, Field) or not field.concrete:
        raise ValueError(f"{model.__name__}.{name} is not a column")
    return field


def _column(field: Field[Any, Any]) -> str:
    """A concrete field's column (the stubs allow None, which only a field with no
    column of its own has)."""
    assert field.column is not None
    return field.column


class _Insert(NamedTuple):
    head: str
    row: str
    fields: list[Field[Any, Any]]


def insert_rows(model: type[M], rows: Sequence[M]) -> None:
    """Insert `rows` in one multi-row INSERT, like ``model.objects.bulk_create(rows)``
    but without reading anything back: the rows' primary keys stay unset when the
    database assigns them (an auto-increment), so nothing may rely on them.

    Measured gain (``python -m bench.fastsql``): ``bulk_create`` costs 1.9x its CPU
    for one event, 2.5x for two (a move appends one or two).
    """
    if not rows:
        return
    db = connections[DEFAULT_DB_ALIAS]

    def build() -> _Insert:
        meta = model._meta
        # A column the database fills (an auto-increment key) is left to it.
        fields = [f for f in meta.concrete_fields if not f.generated and not f.db_returning]
        quote = db.ops.quote_name
        columns = ", ".join(quote(_column(f)) for f in fields)
        return _Insert(
            head=f"INSERT INTO {quote(meta.db_table)} ({columns}) VALUES ",
            row="(" + ", ".join(["%s"] * len(fields)) + ")",
            fields=fields,
        )

    plan: _Insert = _plan(db, ("insert", model), build)
    params = [f.get_db_prep_save(f.pre_save(obj, True), db) for obj in rows for f in plan.fields]
    with db.cursor() as cursor:
        cursor.execute(plan.head + ", ".join([plan.row] * len(rows)), params)


class _Update(NamedTuple):
    head: str
    tail: str
    fields: list[Field[Any, Any]]
    pk: Field[Any, Any]


def update_fields(instance: Model, fields: Sequence[str], *, also: Extra | None = None) -> int:
    """Write the instance's current values of `fields` to its row in one UPDATE, like
    ``type(instance).objects.filter(pk=instance.pk).update(...)``: it refreshes no
    ``auto_now`` field, so set those first. Returns the number of rows updated.

    `also` is an SQL expression the same statement evaluates once, joined as
    ``UPDATE ... FROM (SELECT <also>) AS also WHERE ...`` (PostgreSQL's syntax): a
    side effect such as a notification that then costs no round trip of its own.

    Measured gain (``python -m bench.fastsql``, the nine fields a move writes):
    ``QuerySet.update()`` costs 2.0x its CPU, ``save(update_fields=...)`` 2.0x.
    """
    db = connections[DEFAULT_DB_ALIAS]
    model = type(instance)

    def build() -> _Update:
        meta = model._meta
        assert meta.pk is not None
        quote = db.ops.quote_name
        chosen = [_concrete(model, name) for name in fields]
        assignments = ", ".join(f"{quote(_column(f))} = %s" for f in chosen)
        joined = f" FROM (SELECT {also[0]}) AS also" if also is not None else ""
        return _Update(
            head=f"UPDATE {quote(meta.db_table)} SET {assignments}",
            tail=f"{joined} WHERE {quote(_column(meta.pk))} = %s",
            fields=chosen,
            pk=meta.pk,
        )

    key = ("update", model, tuple(fields), None if also is None else also[0])
    plan: _Update = _plan(db, key, build)
    params = [f.get_db_prep_save(getattr(instance, f.attname), db) for f in plan.fields]
    if also is not None:
        params += also[1]
    params.append(plan.pk.get_db_prep_value(instance.pk, db))
    with db.cursor() as cursor:
        cursor.execute(plan.head + plan.tail, params)
        return int(cursor.rowcount)


class _Select(NamedTuple):
    sql: str
    field: Field[Any, Any]
    attnames: list[str]
    converters: list[tuple[int, list[Callable[..., Any]], Any]]


def select_by(
    model: type[M],
    field: str,
    value: object,
    *,
    lock: bool = False,
    skip_locked: bool = False,
) -> M | None:
    """The row whose unique column `field` equals `value`, as a model instance (every
    field loaded, ready to `save()`), or None; like
    ``model.objects.filter(**{field: value}).first()``. `value` is checked as the
    ORM checks it: a malformed UUID raises ``ValidationError``.

    With `lock`, ``FOR UPDATE`` (where the database has it) locks the row for the
    caller's transaction; with `skip_locked` too, a row another transaction holds
    counts as not found.

    Measured gain (``python -m bench.fastsql``): locking a game row,
    ``select_for_update().get(pk=...)`` costs 3.2x its CPU (``.filter().first()``
    4.0x); a player by token hash, ``.get(token_hash=...)`` 3.9x
    (``.filter().first()`` 5.1x). Even ``objects.raw()`` of the same SQL costs about
    2x: it works out the columns and converters again for every query.
    """
    db = connections[DEFAULT_DB_ALIAS]

    def build() -> _Select:
        meta = model._meta
        column = _concrete(model, field)
        if not column.unique:
            raise ValueError(f"{model.__name__}.{field} is not unique")
        quote = db.ops.quote_name
        fields = meta.concrete_fields
        sql = (
            f"SELECT {', '.join(quote(_column(f)) for f in fields)}"
            f" FROM {quote(meta.db_table)} WHERE {quote(_column(column))} = %s"
        )
        if lock and db.features.has_select_for_update:
            skip = skip_locked and db.features.has_select_for_update_skip_locked
            sql += " FOR UPDATE SKIP LOCKED" if skip else " FOR UPDATE"
        converters = []
        for index, f in enumerate(fields):
            col = f.get_col(meta.db_table)
            found = db.ops.get_db_converters(col) + f.get_db_converters(db)
            if found:
                converters.append((index, found, col))
        return _Select(sql, column, [f.attname for f in fields], converters)

    plan: _Select = _plan(db, ("select", model, field, lock, skip_locked), build)
    with db.cursor() as cursor:
        cursor.execute(plan.sql, [plan.field.get_db_prep_value(value, db)])
        row = cursor.fetchone()
    if row is None:
        return None
    values = list(row)
    for index, functions, col in plan.converters:
        for convert in functions:
            values[index] = convert(values[index], col, db)
    return model.from_db(db.alias, plan.attnames, values)
