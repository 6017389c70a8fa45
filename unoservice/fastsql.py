"""Hand-built SQL for the statements every request or move runs: the token lookup,
the game row's locking select, the events' INSERT, the game's UPDATE, and the read
of a game's newest events by the live streams; and for those of quick match and of a
game's end (its ratings).

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

import contextlib
import weakref
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
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


def insert_rows(model: type[M], rows: Sequence[M], *, ignore_conflicts: bool = False) -> None:
    """Insert `rows` in one multi-row INSERT, like ``model.objects.bulk_create(rows)``
    but without reading anything back: the rows' primary keys stay unset when the
    database assigns them (an auto-increment), so nothing may rely on them. With
    `ignore_conflicts`, a row that would break a unique constraint is left out
    (``ON CONFLICT DO NOTHING``), as ``bulk_create(ignore_conflicts=True)``.

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
    tail = " ON CONFLICT DO NOTHING" if ignore_conflicts else ""
    with db.cursor() as cursor:
        cursor.execute(plan.head + ", ".join([plan.row] * len(rows)) + tail, params)


class _UpdateRows(NamedTuple):
    sql: str
    fields: list[Field[Any, Any]]
    pk: Field[Any, Any]


def update_rows(model: type[M], rows: Sequence[M], fields: Sequence[str]) -> None:
    """Write each row's own values of `fields` to it, in one UPDATE, like
    ``model.objects.bulk_update(rows, fields)`` (which refreshes no ``auto_now`` field
    either). On PostgreSQL the values go as one array per column (``unnest``), so the
    statement's text is the same for any number of rows; elsewhere this is
    ``bulk_update``.

    Measured gain (``python -m bench.fastsql``): ``bulk_update`` costs 12x its CPU
    for the ratings of a 10-player game.
    """
    if not rows:
        return
    db = connections[DEFAULT_DB_ALIAS]
    if db.vendor != "postgresql":
        model._default_manager.bulk_update(rows, fields)
        return

    def build() -> _UpdateRows:
        meta = model._meta
        assert meta.pk is not None
        quote = db.ops.quote_name
        chosen = [_concrete(model, name) for name in fields]
        names = [quote(_column(f)) for f in (meta.pk, *chosen)]
        arrays = ", ".join(f"%s::{f.cast_db_type(db)}[]" for f in (meta.pk, *chosen))
        table, pk = quote(meta.db_table), names[0]
        assignments = ", ".join(f"{name} = v.{name}" for name in names[1:])
        return _UpdateRows(
            sql=f"UPDATE {table} SET {assignments} FROM unnest({arrays})"
            f" AS v({', '.join(names)}) WHERE {table}.{pk} = v.{pk}",
            fields=chosen,
            pk=meta.pk,
        )

    plan: _UpdateRows = _plan(db, ("update_rows", model, tuple(fields)), build)
    columns = [[plan.pk.get_db_prep_value(row.pk, db) for row in rows]]
    columns += [
        [f.get_db_prep_save(getattr(row, f.attname), db) for row in rows] for f in plan.fields
    ]
    with db.cursor() as cursor:
        cursor.execute(plan.sql, columns)


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
    keys: list[Field[Any, Any]]  # the fields compared with the first parameters, in order
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
    4.0x). Even ``objects.raw()`` of the same SQL costs about 2x: it works out the
    columns and converters again for every query.
    """
    db = connections[DEFAULT_DB_ALIAS]

    def build() -> _Select:
        if not _concrete(model, field).unique:
            raise ValueError(f"{model.__name__}.{field} is not unique")
        lock_clause = ""
        if lock and db.features.has_select_for_update:
            skip = skip_locked and db.features.has_select_for_update_skip_locked
            lock_clause = " FOR UPDATE SKIP LOCKED" if skip else " FOR UPDATE"
        return _select_plan(db, model, [field], lock_clause)

    plan: _Select = _plan(db, ("select", model, field, lock, skip_locked), build)
    with db.cursor() as cursor:
        cursor.execute(plan.sql, [plan.keys[0].get_db_prep_value(value, db)])
        row = cursor.fetchone()
    if row is None:
        return None
    return _instance(model, db, plan, row)


def _instance(model: type[M], db: BaseDatabaseWrapper, plan: _Select, row: Sequence[Any]) -> M:
    values = list(row)
    for index, functions, col in plan.converters:
        for convert in functions:
            values[index] = convert(values[index], col, db)
    return model.from_db(db.alias, plan.attnames, values)


def _select_plan(
    db: BaseDatabaseWrapper,
    model: type[Model],
    equal: Sequence[str],
    tail: str,
    *,
    where: str | None = None,
) -> _Select:
    """Every concrete column of `model` and their converters, selected ``WHERE`` each
    field of `equal` equals a parameter (or ``WHERE`` `where`, whose parameters are
    for the fields of `equal`), followed by `tail`; `where` and `tail` are SQL with
    `{name}` for a field's quoted column."""
    meta = model._meta
    keys = [_concrete(model, name) for name in equal]
    quote = db.ops.quote_name
    fields = meta.concrete_fields
    columns = {f.name: quote(_column(f)) for f in fields}
    if where is None:
        where = " AND ".join(f"{quote(_column(key))} = %s" for key in keys)
    sql = (
        f"SELECT {', '.join(quote(_column(f)) for f in fields)}"
        f" FROM {quote(meta.db_table)} WHERE {where.format(**columns)}" + tail.format(**columns)
    )
    converters = []
    for index, f in enumerate(fields):
        col = f.get_col(meta.db_table)
        found = db.ops.get_db_converters(col) + f.get_db_converters(db)
        if found:
            converters.append((index, found, col))
    return _Select(sql, keys, [f.attname for f in fields], converters)


def select_newest(
    model: type[M], field: str, value: object, *, order: str, after: int, upto: int, limit: int
) -> list[M]:
    """The rows whose `field` equals `value` and whose integer `order` column is in
    (`after`, `upto`], at most the `limit` highest, in ascending `order`; like
    ``reversed(model.objects.filter(...).order_by("-order")[:limit])``. A game's
    newest events, as the live streams read them on every change.

    Measured gain (``python -m bench.fastsql``): the ORM's query costs 3.0-3.1x its
    CPU for the six events of a game just started.
    """
    db = connections[DEFAULT_DB_ALIAS]
    tail = f" AND {{{order}}} > %s AND {{{order}}} <= %s ORDER BY {{{order}}} DESC LIMIT %s"
    plan: _Select = _plan(
        db, ("newest", model, field, order), lambda: _select_plan(db, model, [field], tail)
    )
    with db.cursor() as cursor:
        cursor.execute(plan.sql, [plan.keys[0].get_db_prep_value(value, db), after, upto, limit])
        rows = cursor.fetchall()
    return [_instance(model, db, plan, row) for row in reversed(rows)]


def select_where(
    model: type[M],
    equal: Mapping[str, object],
    *,
    order_by: Sequence[str],
    limit: int,
    lock: bool = False,
) -> list[M]:
    """The first `limit` rows, by `order_by` (fields, ascending), whose fields equal
    the values of `equal`; like ``model.objects.filter(**equal).order_by(*order_by)
    [:limit]``. With `lock`, ``FOR UPDATE`` (where the database has it) locks them for
    the caller's transaction, in that order; a row changed meanwhile so that it no
    longer matches is left out, as PostgreSQL rechecks a locked row.

    Measured gain (``python -m bench.fastsql``): the ORM's locking query costs
    4.4x its CPU, for the waiting quick-match games of one setting.
    """
    db = connections[DEFAULT_DB_ALIAS]
    names = tuple(equal)

    def build() -> _Select:
        order = ", ".join("{" + _concrete(model, name).name + "}" for name in order_by)
        tail = f" ORDER BY {order} LIMIT %s"
        if lock and db.features.has_select_for_update:
            tail += " FOR UPDATE"
        return _select_plan(db, model, names, tail)

    plan: _Select = _plan(db, ("where", model, names, tuple(order_by), lock), build)
    values = [equal[name] for name in names]
    params = [key.get_db_prep_value(v, db) for key, v in zip(plan.keys, values, strict=True)]
    with db.cursor() as cursor:
        cursor.execute(plan.sql, [*params, limit])
        rows = cursor.fetchall()
    return [_instance(model, db, plan, row) for row in rows]


def select_in(
    model: type[M], field: str, values: Sequence[object], *, order_by: str, lock: bool = False
) -> list[M]:
    """The rows whose `field` is one of `values`, by `order_by` (a field, ascending);
    like ``model.objects.filter(**{field + "__in": values}).order_by(order_by)``. With
    `lock`, ``FOR UPDATE`` (where the database has it) locks them for the caller's
    transaction, in that order.

    Measured gain (``python -m bench.fastsql``): the ORM's locking query costs 2.7x
    its CPU, for the ten ratings of a 10-player game.
    """
    if not values:
        return []
    db = connections[DEFAULT_DB_ALIAS]

    def build() -> _Select:
        column = "{" + _concrete(model, field).name + "}"
        tail = " ORDER BY {" + _concrete(model, order_by).name + "}"
        if lock and db.features.has_select_for_update:
            tail += " FOR UPDATE"
        where = f"{column} IN ({', '.join(['%s'] * len(values))})"
        return _select_plan(db, model, [field], tail, where=where)

    plan: _Select = _plan(db, ("in", model, field, len(values), order_by, lock), build)
    key = plan.keys[0]
    with db.cursor() as cursor:
        cursor.execute(plan.sql, [key.get_db_prep_value(value, db) for value in values])
        rows = cursor.fetchall()
    return [_instance(model, db, plan, row) for row in rows]


class _Joined(NamedTuple):
    sql: str
    key: Field[Any, Any]
    own: _Select  # the model's columns, then the related model's
    related: _Select
    split: int


def select_in_with(model: type[M], field: str, values: Sequence[object], related: str) -> list[M]:
    """The rows whose unique `field` is one of `values`, each with the row its foreign
    key `related` points to loaded as well, in one query; like
    ``model.objects.select_related(related).filter(**{field + "__in": values})``, in
    no particular order. A session by its token with its player, for every request.

    Measured gain (``python -m bench.fastsql``): the ORM's query costs 4.2x its CPU
    for one session and its player.
    """
    if not values:
        return []
    db = connections[DEFAULT_DB_ALIAS]

    def build() -> _Joined:
        key = _concrete(model, field)
        if not key.unique:
            raise ValueError(f"{model.__name__}.{field} is not unique")
        link = model._meta.get_field(related)
        other = link.related_model
        assert isinstance(link, Field)
        assert isinstance(other, type)
        assert other._meta.pk is not None
        quote = db.ops.quote_name
        own = _select_plan(db, model, [field], "")
        theirs = _select_plan(db, other, [other._meta.pk.name], "")
        columns = [
            *(f"a.{quote(_column(f))}" for f in model._meta.concrete_fields),
            *(f"b.{quote(_column(f))}" for f in other._meta.concrete_fields),
        ]
        marks = ", ".join(["%s"] * len(values))
        sql = (
            f"SELECT {', '.join(columns)} FROM {quote(model._meta.db_table)} a"
            f" JOIN {quote(other._meta.db_table)} b"
            f" ON b.{quote(_column(other._meta.pk))} = a.{quote(_column(link))}"
            f" WHERE a.{quote(_column(key))} IN ({marks})"
        )
        return _Joined(sql, key, own, theirs, len(model._meta.concrete_fields))

    plan: _Joined = _plan(db, ("with", model, field, len(values), related), build)
    with db.cursor() as cursor:
        cursor.execute(plan.sql, [plan.key.get_db_prep_value(value, db) for value in values])
        rows = cursor.fetchall()
    found = []
    other_model = model._meta.get_field(related).related_model
    for row in rows:
        instance = _instance(model, db, plan.own, row[: plan.split])
        linked = _instance(other_model, db, plan.related, row[plan.split :])  # type: ignore[arg-type]
        setattr(instance, related, linked)
        found.append(instance)
    return found


def lock_keys(model: type[Model], keys: Sequence[object]) -> None:
    """Lock the rows of these primary keys for the caller's transaction, in key order
    (two callers locking overlapping sets cannot deadlock), in one statement; like
    reading ``model.objects.select_for_update().filter(pk__in=keys).order_by("pk")``
    whole. Nothing where the database has no ``FOR UPDATE``.

    Measured gain (``python -m bench.fastsql``): the ORM's query costs 3.0x its CPU
    for the rows of 13 players (a batch of quick-match requests under a crowd).
    """
    db = connections[DEFAULT_DB_ALIAS]
    if not keys or not db.features.has_select_for_update:
        return

    def build() -> tuple[str, Field[Any, Any]]:
        meta = model._meta
        assert meta.pk is not None
        quote = db.ops.quote_name
        pk, table = quote(_column(meta.pk)), quote(meta.db_table)
        marks = ", ".join(["%s"] * len(keys))
        return f"SELECT {pk} FROM {table} WHERE {pk} IN ({marks}) ORDER BY {pk} FOR UPDATE", meta.pk

    sql, pk = _plan(db, ("lock", model, len(keys)), build)
    with db.cursor() as cursor:
        cursor.execute(sql, [pk.get_db_prep_value(key, db) for key in keys])


@contextlib.contextmanager
def pipelined() -> Iterator[None]:
    """Send the statements of the block without waiting for each one's answer (on
    PostgreSQL, psycopg's pipeline mode), then wait once for them all: one round
    trip for writes whose results nobody reads. A statement whose result is read
    (a fetch) waits for the answers before it. Elsewhere, nothing changes.

    `tests/unoservice/test_fastsql.py` checks that an error in the block leaves as
    Django's own error, rolls the transaction back and leaves the connection usable."""
    db = connections[DEFAULT_DB_ALIAS]
    if db.vendor != "postgresql":
        yield
        return
    db.ensure_connection()
    # Errors come when the answers are read, at the block's end as well: they are
    # Django's, as from any other statement.
    with db.wrap_database_errors, db.connection.pipeline():
        yield
