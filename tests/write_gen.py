"""Random tables, items and write statements for the model-based write fuzzer
(tests/test_write_fuzz.py); the meaning of each statement is in tests/write_model.py.

Everything is drawn from one `random.Random(seed)`, so a seed replays a run exactly. Literals
are often taken from the items (so WHEREs match and INSERTs collide), otherwise drawn fresh.
"""

from __future__ import annotations

import random
from decimal import Decimal
from typing import Any

import write_model as wm
from write_model import (
    MISSING,
    Assign,
    Between,
    Change,
    Compare,
    Cond,
    Func,
    In,
    Insert,
    IsNull,
    Item,
    Junction,
    Like,
    Not,
    Params,
    Schema,
    Size,
    Statement,
    Transaction,
    Unmodelable,
    conj,
    sql_name,
    sql_path,
    sql_value,
    type_of,
)

KEY_POOLS: dict[str, list[Any]] = {
    "S": ["a", "b", "c", "Zebra", "apple", "Äpfel", "x y", "it's", "😀", "日本", "a%b"],
    "N": [
        Decimal(x)
        for x in (
            "0",
            "1",
            "-1",
            "2.5",
            "10",
            "12345678901234567890123456789012345678",
            "-7",
            "1E+3",
            "0.001",
            "-0.5",
        )
    ],
    "B": [b"\x00", b"\x01", b"ab", b"\xff\xfe", b"z", b"\x00\x00"],
}
STRINGS = ["", "a", "b", "abc", "Zebra", "apple", "Äpfel", "x y", "it's", "日本", "a_c", "note a1"]
NUMBERS = [
    Decimal(x)
    for x in (
        "0",
        "1",
        "-1",
        "3",
        "42",
        "1.5",
        "-0.25",
        "0.001",
        "1E+20",
        "12345678901234567890123456789012345678",
        "-12345678901234567890123456789012345678",
        "99999999999999999999999999999999999999",
        "1.234567890123456789012345678901234567",
        "-3.14",
    )
]
BINARIES = [b"", b"\x00", b"\x01\x02", b"\xff", b"ab"]
ATTRS = ["a", "b", "n", "m", "l", "tags", "nums", "name", "status", "flag", "odd-name"]
MAP_KEYS = ["x", "y", "name", "k"]


class Gen:
    """Draws values, items, conditions and statements for one table (and its source table)."""

    def __init__(self, rng: random.Random, schema: Schema, table: str, source: str):
        self.rng = rng
        self.schema = schema
        self.table = table
        self.source = source
        pk_type = schema.pk[1]
        self.pk_pool = rng.sample(KEY_POOLS[pk_type], 3)
        self.sk_pool = rng.sample(KEY_POOLS[schema.sk[1]], 4) if schema.sk else []

    # --- values ---

    def scalar(self, code: str | None = None) -> Any:
        rng = self.rng
        code = code or rng.choice(["S", "S", "N", "N", "B", "BOOL", "NULL"])
        if code == "S":
            return rng.choice(STRINGS)
        if code == "N":
            return rng.choice(NUMBERS)
        if code == "B":
            return rng.choice(BINARIES)
        if code == "BOOL":
            return rng.random() < 0.5
        return None

    def value(self, code: str | None = None, depth: int = 0) -> Any:
        rng = self.rng
        if code is None:
            code = rng.choice(
                ["S", "N", "B", "BOOL", "NULL", "SS", "NS", "BS"]
                + (["L", "M"] if depth < 2 else [])
            )
        if code == "L":
            return [self.value(None, depth + 1) for _ in range(rng.randint(0, 3))]
        if code == "M":
            return {k: self.value(None, depth + 1) for k in rng.sample(MAP_KEYS, rng.randint(0, 3))}
        if code == "SS":
            return frozenset(rng.sample([s for s in STRINGS if s], rng.randint(1, 3)))
        if code == "NS":
            return frozenset(rng.sample(NUMBERS, rng.randint(1, 3)))
        if code == "BS":
            return frozenset(rng.sample([b for b in BINARIES if b], rng.randint(1, 2)))
        return self.scalar(code)

    def attr_value(self, name: str) -> Any:
        """A value for a non-key attribute: mostly the type its name suggests (irregular)."""
        usual = {"n": "N", "tags": "SS", "nums": "NS", "m": "M", "l": "L", "name": "S"}
        if name in self.schema.index_keys:
            return self.scalar(self.schema.index_keys[name]) or self.key_value(
                self.schema.index_keys[name]
            )
        if name == "flag":
            return self.rng.choice([True, False, None])
        if name in usual and self.rng.random() < 0.8:
            return self.value(usual[name])
        return self.value()

    def key_value(self, code: str) -> Any:
        return self.rng.choice(KEY_POOLS[code])

    def literal_value(self, draw: Any) -> Any:
        for _ in range(20):
            v = draw()
            if wm.literal_ok(v):
                return v
        raise Unmodelable("no literal")

    def index_value(self, name: str) -> Any:
        code = self.schema.index_keys[name]
        v = self.scalar(code)
        if code in ("S", "B") and not v:
            v = self.key_value(code)
        return v

    def item(self) -> Item:
        rng = self.rng
        item: Item = {self.schema.pk[0]: rng.choice(self.pk_pool)}
        if self.schema.sk:
            item[self.schema.sk[0]] = rng.choice(self.sk_pool)
        for name in ATTRS:
            if rng.random() < 0.5:
                item[name] = self.attr_value(name)
        for name in self.schema.index_keys:
            if rng.random() < 0.6:
                item[name] = self.index_value(name)
        return item

    def items(self, n: int) -> dict[wm.Key, Item]:
        out: dict[wm.Key, Item] = {}
        for _ in range(n):
            item = self.item()
            out[self.schema.key_of(item)] = item
        return out

    # --- conditions ---

    def paths(self) -> list[wm.Path]:
        s = self.schema
        return [(a,) for a in ATTRS + s.keys + list(s.index_keys)] + [
            ("m", "x"),
            ("m", "name"),
            ("l", 0),
            ("l", 1),
            ("m", "k", 0),
        ]

    def seen(self, items: list[Item], path: wm.Path) -> Any:
        """A scalar found at `path` in some item, else a fresh one (a condition's values are
        scalars: grammar/README.md, "Values and parameters")."""
        found = [v for v in (wm.resolve(i, path) for i in items) if v is not MISSING]
        found = [v for v in found if type_of(v) in ("S", "N", "B", "BOOL", "NULL")]
        if found and self.rng.random() < 0.7:
            return self.rng.choice(found)
        return self.value(self.rng.choice(["S", "N", "N", "B", "BOOL", "NULL"]))

    def predicate(self, items: list[Item], depth: int = 0) -> Cond:
        rng = self.rng
        path = rng.choice(self.paths())
        kind = rng.random()
        if depth < 2 and kind < 0.08:
            return Not(self.predicate(items, depth + 1))
        if depth < 2 and kind < 0.16:
            op = rng.choice(["AND", "OR"])
            return Junction(op, [self.predicate(items, depth + 1) for _ in range(2)])
        if kind < 0.4:
            v = self.literal_value(lambda: self.seen(items, path))
            return Compare(
                path, rng.choice(["=", "<>", "!=", "<", "<=", ">", ">="]), v, rng.random() < 0.2
            )
        if kind < 0.48:
            a = self.literal_value(lambda: self.seen(items, path))
            b = self.literal_value(lambda: self.seen(items, path))
            if wm._order(a, b) is None:
                raise Unmodelable("BETWEEN of unordered bounds")
            low, high = (a, b) if wm._order(a, b) <= 0 else (b, a)
            return Between(path, low, high)
        if kind < 0.56:
            return In(
                path,
                [
                    self.literal_value(lambda: self.seen(items, path))
                    for _ in range(rng.randint(1, 3))
                ],
            )
        if kind < 0.64:
            v = self.seen(items, path)
            if type_of(v) in ("S", "B") and len(v) > 1 and rng.random() < 0.7:
                v = v[: rng.randint(1, len(v) - 1)]
            elif type_of(v) not in ("S", "B"):
                v = self.scalar(rng.choice(["S", "B"]))
            return Func("begins_with", path, v)
        if kind < 0.72:
            found = [v for v in (wm.resolve(i, path) for i in items) if v is not MISSING]
            v = rng.choice(found) if found else self.seen(items, path)
            if type_of(v) in ("SS", "NS", "BS", "L") and v:
                v = rng.choice(sorted(v, key=wm.canon))
            if type_of(v) not in ("S", "N", "B"):
                v = self.scalar(rng.choice(["S", "N", "B"]))
            return Func("contains", path, v)
        if kind < 0.8:
            return Func(rng.choice(["attribute_exists", "attribute_not_exists"]), path)
        if kind < 0.85:
            return Func("attribute_type", path, rng.choice(wm_types()))
        if kind < 0.9:
            return IsNull(path, rng.random() < 0.5)
        if kind < 0.95:
            return Size(path, rng.choice(["=", "<>", "<", ">=", ">"]), Decimal(rng.randint(0, 3)))
        v = self.seen(items, path)
        if type_of(v) != "S" or not v:
            v = rng.choice([s for s in STRINGS if s])
        pattern = rng.choice([v[:1] + "%", "%" + v[-1:], "_" + v[1:], v, "%" + v[:1] + "%"])
        return Like(path, pattern)

    def key_part(self, items: list[Item]) -> tuple[list[Cond], bool]:
        """The WHERE's key conjuncts, and whether they give the full primary key (no read)."""
        rng = self.rng
        s = self.schema
        pk, sk = s.pk[0], s.sk[0] if s.sk else None
        some = rng.choice(items) if items and rng.random() < 0.8 else None
        pk_value = some[pk] if some else rng.choice(self.pk_pool)
        r = rng.random()
        if r < 0.45:
            parts: list[Cond] = [Compare((pk,), "=", pk_value, rng.random() < 0.2)]
            if sk:
                parts.append(Compare((sk,), "=", some[sk] if some else rng.choice(self.sk_pool)))
            return parts, True
        if r < 0.7:
            parts = [Compare((pk,), "=", pk_value)]
            if sk and rng.random() < 0.6:
                v = some[sk] if some else rng.choice(self.sk_pool)
                if rng.random() < 0.5:
                    parts.append(Compare((sk,), rng.choice(["<", "<=", ">", ">="]), v))
                else:
                    low, high = sorted([v, rng.choice(self.sk_pool)], key=_sort_key)
                    parts.append(Between((sk,), low, high))
                    # sk BETWEEN v AND v is the full key: dynosql writes without a read
                    return parts, wm.equal(low, high)
            return parts, False
        if r < 0.85:
            options = rng.sample(self.pk_pool, 2)
            return [In((pk,), options)], sk is None
        index = [n for n in s.index_keys if self._is_index_hash(n)]
        if index:
            name = rng.choice(index)
            return [
                Compare(
                    (name,), "=", self.seen(items, (name,)) if items else self.index_value(name)
                )
            ], False
        return [], False

    def _is_index_hash(self, name: str) -> bool:
        return any(
            i["KeySchema"][0]["AttributeName"] == name
            for i in self.schema.indexes
            if i["kind"] == "GSI"
        )

    def where(self, items: list[Item], allow_none: bool = True) -> tuple[Cond | None, bool]:
        rng = self.rng
        if allow_none and rng.random() < 0.05:
            return None, False
        parts, keyed = self.key_part(items) if rng.random() < 0.75 else ([], False)
        for _ in range(rng.choice([0, 0, 0, 1, 2]) if parts else rng.choice([1, 1, 2])):
            parts.append(self.predicate(items))
        rng.shuffle(parts)
        return conj(parts), keyed

    # --- statements ---

    def statement(
        self, items: dict[wm.Key, Item], source: dict[wm.Key, Item], in_transaction: bool = False
    ) -> Statement:
        rng = self.rng
        r = rng.random()
        if r < 0.2:
            return self.insert(items, "INSERT", in_transaction)
        if r < 0.32:
            return self.insert(items, "UPSERT", in_transaction)
        if r < 0.42 and not in_transaction:
            return self.insert_select(source)
        if r < 0.8:
            return self.update(items, in_transaction)
        return self.delete(items, in_transaction)

    def step(
        self, items: dict[wm.Key, Item], source: dict[wm.Key, Item], transactions: bool
    ) -> Statement | Transaction:
        if transactions and self.rng.random() < 0.12:
            return Transaction(
                [self.statement(items, source, True) for _ in range(self.rng.randint(1, 3))]
            )
        return self.statement(items, source)

    def _returning(self, in_transaction: bool) -> str | None:
        if in_transaction or self.rng.random() < 0.6:
            return None
        return self.rng.choice(["new", "old"])

    def _index_draw(self, name: str, wrong: bool) -> Any:
        return lambda: self.value() if wrong else self.index_value(name)

    def _attr_draw(self, name: str) -> Any:
        return lambda: self.attr_value(name)

    def insert(self, items: dict[wm.Key, Item], verb: str, in_transaction: bool) -> Insert:
        rng = self.rng
        s = self.schema
        columns = list(s.keys) + rng.sample(ATTRS + list(s.index_keys), rng.randint(0, 4))
        if rng.random() < 0.02:
            columns.remove(rng.choice(s.keys))  # refused: a row without a key
        existing = list(items.values())
        rows = []
        for _ in range(rng.randint(1, 3)):
            base = rng.choice(existing) if existing and rng.random() < 0.3 else self.item()
            row = []
            for c in columns:
                if c in s.keys:
                    row.append(base[c])
                elif c in s.index_keys:
                    wrong = rng.random() < 0.03
                    row.append(self.literal_value(self._index_draw(c, wrong)))
                else:
                    row.append(self.literal_value(self._attr_draw(c)))
            rows.append(row)
        if rng.random() < 0.03:
            rows.append(list(rows[0]))  # refused: a key given twice
        on_conflict = verb == "INSERT" and not in_transaction and rng.random() < 0.4
        statement = Insert(s, verb, columns, rows, on_conflict, self._returning(in_transaction))
        params = Params()
        text = (
            f"{verb} INTO {self.table} ({', '.join(sql_name(c, rng) for c in columns)}) VALUES "
            + ", ".join("(" + ", ".join(sql_value(v, params) for v in row) + ")" for row in rows)
        )
        if on_conflict:
            text += " ON CONFLICT DO NOTHING"
        statement.sql = text + _returning_sql(statement.returning)
        statement.params = params.values
        return statement

    def insert_select(self, source: dict[wm.Key, Item]) -> Insert:
        rng = self.rng
        s = self.schema
        verb = rng.choice(["INSERT", "UPSERT"])
        src_items = list(source.values())
        where, _ = self.where(src_items)
        params = Params()
        if rng.random() < 0.5:  # SELECT *: whole items
            chosen = [i for i in src_items if where is None or where.holds(i)]
            names = sorted({n for i in chosen for n in i})
            rows = [[i.get(n, MISSING) for n in names] for i in chosen]
            select = f"SELECT * FROM {self.source}"
            columns = names
            prefix = f"{verb} INTO {self.table} "
        else:  # named columns, by position: re-keyed copies of non-key attributes
            plain = [a for a in ATTRS if a not in s.index_keys]
            targets = rng.sample(plain, rng.randint(1, 2))
            picked = rng.sample(ATTRS, len(targets))  # two columns of one name are refused
            chosen = [i for i in src_items if where is None or where.holds(i)]
            columns = list(s.keys) + targets
            rows = [[i[k] for k in s.keys] + [i.get(p, MISSING) for p in picked] for i in chosen]
            select = (
                f"SELECT {', '.join(sql_name(c) for c in list(s.keys) + picked)} FROM {self.source}"
            )
            prefix = f"{verb} INTO {self.table} ({', '.join(sql_name(c) for c in columns)}) "
        if where is not None:
            select += f" WHERE {where.sql(params)}"
        statement = Insert(s, verb, columns, rows, False, self._returning(False), select)
        statement.sql = prefix + select + _returning_sql(statement.returning)
        statement.params = params.values
        return statement

    def assignment(self, items: list[Item], taken: set[str]) -> tuple[Assign, list[Cond]]:
        """One change to an attribute not yet changed, and the conditions that make it valid
        for every item (added to the WHERE most of the time)."""
        rng = self.rng
        s = self.schema
        free = [a for a in ATTRS + list(s.index_keys) if a not in taken]
        r = rng.random()
        name = rng.choice(free)
        # mostly the attribute whose usual type suits the change (so that it matches items)
        suited = next(n for limit, n in _SUITED if r < limit)
        suited = rng.choice(["tags", "nums"]) if suited == "sets" else suited
        if suited in free and rng.random() < 0.8:
            name = suited
        indexed = [n for n in s.index_keys if n in free]
        if indexed and rng.random() < 0.15:
            name = rng.choice(indexed)
        if name in s.index_keys:
            code = s.index_keys[name]
            r = rng.random()
            if r < 0.5:
                return Assign("value", (name,), self.index_value(name)), []
            if r < 0.75 or code != "N":
                return Assign("remove", (name,)), []
            return Assign(
                "arith", (name,), Decimal(rng.randint(1, 5)), (name,), rng.choice("+-")
            ), [Func("attribute_type", (name,), "N")]
        v = lambda: self.literal_value(lambda: self.attr_value(name))  # noqa: E731
        if r < 0.2:
            return Assign("value", (name,), v()), []
        if r < 0.27:
            source = rng.choice(ATTRS)
            return Assign("copy", (name,), None, (source,)), [Func("attribute_exists", (source,))]
        if r < 0.42:
            source = rng.choice([name, name, "n"])
            kind = rng.choice(["arith", "arith", "rarith"])
            delta = Decimal(rng.choice(["1", "2", "5", "0.5", "100"]))
            return Assign(
                kind, (name,), delta, (source,), rng.choice("+-") if kind == "arith" else "+"
            ), [Func("attribute_type", (source,), "N")]
        if r < 0.5:
            source = rng.choice([name, rng.choice(ATTRS)])
            return Assign("if_not_exists", (name,), v(), (source,)), []
        if r < 0.58:
            extra = self.literal_value(lambda: self.value("L"))
            return Assign(rng.choice(["append", "prepend"]), (name,), extra, (name,)), [
                Func("attribute_type", (name,), "L")
            ]
        if r < 0.7:
            code = rng.choice(["SS", "NS"])
            element = self.literal_value(lambda: self.value(code))
            guard = Junction(
                "OR", [Func("attribute_not_exists", (name,)), Func("attribute_type", (name,), code)]
            )
            return Assign(rng.choice(["add", "delete"]), (name,), element), [guard]
        if r < 0.8:
            path = rng.choice([(name, rng.choice(MAP_KEYS)), (name, rng.randint(0, 3))])
            code = "M" if isinstance(path[1], str) else "L"
            return Assign("value", path, v()), [Func("attribute_type", (name,), code)]
        if r < 0.9:
            return Assign("remove", (name,)), []
        path = rng.choice([(name, rng.choice(MAP_KEYS)), (name, rng.randint(0, 3))])
        code = "M" if isinstance(path[1], str) else "L"
        return Assign("remove", path), [Func("attribute_type", (name,), code)]

    def update(self, items: dict[wm.Key, Item], in_transaction: bool) -> Change:
        rng = self.rng
        s = self.schema
        existing = list(items.values())
        assigns: list[Assign] = []
        guards: list[Cond] = []
        taken: set[str] = set()
        for _ in range(rng.randint(1, 3)):
            a, g = self.assignment(existing, taken)
            taken.add(a.path[0])
            assigns.append(a)
            if rng.random() < 0.7:
                guards.extend(g)
        refused = False
        if not in_transaction and rng.random() < 0.04:
            refused = True
            bad = rng.random()
            if bad < 0.4 or not s.index_keys:
                assigns.append(Assign("value", (rng.choice(s.keys),), self.key_value(s.pk[1])))
            elif bad < 0.7:
                name = rng.choice(list(s.index_keys))
                wrong = {"S": Decimal(1), "N": "one", "B": "bee"}[s.index_keys[name]]
                assigns.append(Assign("value", (name,), wrong))
            else:
                assigns.append(Assign("value", (rng.choice(list(s.index_keys)), "x"), Decimal(1)))
        where, _ = self.where(existing)
        where = conj(([where] if where else []) + guards)
        statement = Change(s, "UPDATE", assigns, where, self._returning(in_transaction), refused)
        params = Params()
        sets = [a.sql(params) for a in assigns if a.kind != "remove"]
        removes = [a.sql(params) for a in assigns if a.kind == "remove"]
        text = f"UPDATE {self.table}"
        if sets:
            text += " SET " + ", ".join(sets)
        if removes:
            text += (", " if sets and rng.random() < 0.5 else " ") + "REMOVE " + ", ".join(removes)
        if where is not None:
            text += f" WHERE {where.sql(params)}"
        statement.sql = text + _returning_sql(statement.returning)
        statement.params = params.values
        return statement

    def delete(self, items: dict[wm.Key, Item], in_transaction: bool) -> Change:
        where, _ = self.where(list(items.values()))
        statement = Change(self.schema, "DELETE", [], where, self._returning(in_transaction), False)
        params = Params()
        text = f"DELETE FROM {self.table}"
        if where is not None:
            text += f" WHERE {where.sql(params)}"
        statement.sql = text + _returning_sql(statement.returning)
        statement.params = params.values
        return statement


# the draw's ranges in `Gen.assignment` → the attribute that usually suits that change
_SUITED = [(0.27, ""), (0.42, "n"), (0.5, ""), (0.58, "l"), (0.7, "sets"), (0.8, "m"), (1.1, "")]


def wm_types() -> list[str]:
    return ["S", "N", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS"]


def _sort_key(v: Any) -> Any:
    t = type_of(v)
    return v.encode() if t == "S" else bytes(v) if t == "B" else v


def _returning_sql(kind: str | None) -> str:
    return {None: "", "new": " RETURNING *", "old": " RETURNING old.*"}[kind]


def draw_schema(rng: random.Random) -> Schema:
    """Hash or hash+range keys of S/N/B; maybe a GSI (maybe with a sort key) and an LSI, each
    with a random projection: sparse, as items hold their keys only sometimes."""
    pk = ("pk", rng.choice("SNB"))
    sk = ("sk", rng.choice("SNB")) if rng.random() < 0.7 else None
    index_keys: dict[str, str] = {}
    indexes: list[dict[str, Any]] = []

    def projection() -> dict[str, Any]:
        kind = rng.choice(["ALL", "KEYS_ONLY", "INCLUDE"])
        if kind == "INCLUDE":
            return {"ProjectionType": kind, "NonKeyAttributes": ["a", "n"]}
        return {"ProjectionType": kind}

    if rng.random() < 0.7:
        index_keys["gk"] = rng.choice("SNB")
        schema = [{"AttributeName": "gk", "KeyType": "HASH"}]
        if rng.random() < 0.4:
            index_keys["gs"] = "N"
            schema.append({"AttributeName": "gs", "KeyType": "RANGE"})
        indexes.append(
            {"kind": "GSI", "IndexName": "gsi1", "KeySchema": schema, "Projection": projection()}
        )
    if sk and rng.random() < 0.5:
        index_keys["lk"] = rng.choice("SN")
        indexes.append(
            {
                "kind": "LSI",
                "IndexName": "lsi1",
                "KeySchema": [
                    {"AttributeName": "pk", "KeyType": "HASH"},
                    {"AttributeName": "lk", "KeyType": "RANGE"},
                ],
                "Projection": projection(),
            }
        )
    return Schema(pk, sk, index_keys, indexes)


__all__ = ["Gen", "draw_schema", "sql_path"]
