"""The SQL of joins, no server: what the parser reads (sources, aliases, LEFT, ON, ``o.*``),
every form it refuses (one line, at the keyword), and whose each name is once the sources are
known (``join_sources.resolved``: the fixtures' entities and tables), with its line and column
when a name is ambiguous or of no source."""

from __future__ import annotations

import pytest
from test_join_fixtures import find

from dynosql.errors import DynosqlError, SqlError
from dynosql.plan.join import plan_join
from dynosql.plan.join_sources import resolved
from dynosql.plan.planner import Options
from dynosql.session import Session
from dynosql.sql import ast, parse


def _select(sql: str) -> ast.Select:
    statement = parse(sql)
    assert isinstance(statement, ast.Select)
    return statement


def _error(sql: str) -> DynosqlError:
    with pytest.raises(DynosqlError) as refused:
        statement, sources = resolved(_select(sql), find)
        plan_join(statement, sources, Options())
    return refused.value


def test_the_sources_of_a_join() -> None:
    s = _select(
        "SELECT o.orderId, s.* FROM orders o LEFT OUTER JOIN shipment AS s ON s.orderId = "
        "o.orderId\n  INNER JOIN shop.gsi2 g ON g.gsi2pk = s.carrier JOIN products ON products.pk = o.x"
    )
    assert (s.table, s.alias) == ("orders", "o")
    assert [(j.table, j.index, j.alias, j.left) for j in s.joins] == [
        ("shipment", None, "s", True),
        ("shop", "gsi2", "g", False),
        ("products", None, None, False),
    ]
    assert [(j.pos.line, j.pos.col) for j in s.joins] == [(1, 37), (2, 3), (2, 50)]
    assert s.joins[0].on == ast.Compare(
        "=", ast.Path(("s", "orderId"), "s.orderId"), ast.Path(("o", "orderId"), "o.orderId")
    )
    assert s.items is not None and s.items[1].expr == ast.AllColumns("s")
    # t.* alone, t the table or its alias, is SELECT * (no join)
    assert _select("SELECT d.* FROM drive d").items is None


# (sql, the whole error): every other form of join, at its keyword
REFUSED = [
    ("SELECT * FROM a, b", "line 1, column 16: FROM a, b is not supported: write the join as JOIN b ON …"),
    ("SELECT * FROM a CROSS JOIN b", "line 1, column 17: CROSS JOIN is not supported: a join reads by key: write JOIN … ON with the columns that join"),
    ("SELECT * FROM a FULL OUTER JOIN b ON b.x = a.x", "line 1, column 17: FULL JOIN is not supported: a join keeps the rows before it (LEFT JOIN) or not (JOIN)"),
    ("SELECT *\nFROM a\n  NATURAL JOIN b", "line 3, column 3: NATURAL JOIN is not supported: write JOIN … ON with the columns that join"),
    ("SELECT * FROM a x JOIN b USING (k)", "line 1, column 19: JOIN … USING is not supported: write ON b.c = x.c"),
    ("SELECT * FROM a x JOIN b y", "line 1, column 19: JOIN b needs ON: JOIN b ON y.… = x.… (the columns that join them)"),
    ("SELECT * FROM a JOIN a ON a.x = a.y", "line 1, column 22: two sources are named a: give this one an alias of its own (JOIN a AS a2 …)"),
    ("SELECT * FROM a JOIN b TABLESAMPLE (5 PERCENT) ON b.x = a.x", "line 1, column 24: TABLESAMPLE samples one table's Scan: it is not supported in a join"),
    ("SELECT o.* AS z FROM a o JOIN b ON b.x = o.x", "line 1, column 8: o.* takes no alias: its columns keep their names"),
    ("SELECT o.*, COUNT(*) FROM a o JOIN b ON b.x = o.x", "line 1, column 8: SELECT o.* cannot be combined with GROUP BY or aggregates"),
    ("SELECT x.* FROM a", "line 1, column 8: x.*: no table or alias x in FROM"),
]  # fmt: skip


@pytest.mark.parametrize("sql, text", REFUSED)
def test_other_joins_are_refused_at_their_keyword(sql: str, text: str) -> None:
    with pytest.raises(SqlError) as refused:
        parse(sql)
    assert str(refused.value) == text


# (sql, the whole error): names once the sources are known
NAMES = [
    ("SELECT orderId FROM orders o JOIN shipment s ON s.orderId = o.orderId", "line 1, column 8: orderId is a column of both o and s: write o.orderId or s.orderId"),
    ("SELECT o.total FROM orders o JOIN shipment s ON s.orderId = o.orderId WHERE\n  zz = 1", "line 2, column 3: zz is a column of neither o nor s: write o.zz or s.zz (without a qualifier a name must be a key column of one source)"),
    ("SELECT orderid FROM orders o JOIN products p ON p.pk = o.x", "line 1, column 8: orderid is a column of neither o nor p: write o.orderid or p.orderid (without a qualifier a name must be a key column of one source); did you mean o.orderId?"),
    ("SELECT x.status FROM orders o JOIN shipment s ON s.orderId = o.orderId", "line 1, column 8: x.status: no source is named x (the sources: o, s)"),
    ("SELECT q.* FROM orders o JOIN shipment s ON s.orderId = o.orderId", "line 1, column 8: q.*: no source is named q (the sources: o, s)"),
    ("SELECT carrier, COUNT(*) FROM orders o JOIN shipment s ON s.orderId = o.orderId", "line 1, column 8: s.carrier must appear in GROUP BY or be inside an aggregate"),
    ("SELECT o.total FROM orders o JOIN shipment.gsi9 s ON s.orderId = o.orderId", "line 1, column 35: shipment does not live in index gsi9 (its indexes: gsi2)"),
    ("SELECT ITEM_SIZE() FROM orders o JOIN shipment s ON s.orderId = o.orderId", "line 1, column 8: ITEM_SIZE() sizes one table's items: a join's rows are made of several"),
]  # fmt: skip


@pytest.mark.parametrize("sql, text", NAMES)
def test_names_are_whose_they_can_only_be(sql: str, text: str) -> None:
    assert str(_error(sql)) == text


def test_names_are_qualified_and_columns_named_after_them() -> None:
    statement, sources = resolved(
        _select(
            "SELECT carrier, o.orderId, s.orderId, o.total AS t, COUNT(*) FROM orders o "
            "JOIN shipment s ON s.orderId = o.orderId WHERE o.total > 5 AND status = 'SENT' "
            "GROUP BY carrier, o.orderId, s.orderId, o.total"
        ),
        find,
    )
    assert statement.items is not None
    assert [i.name for i in statement.items] == [
        "carrier",
        "o.orderId",
        "s.orderId",
        "t",
        "COUNT(*)",
    ]
    assert [g.elements for g in statement.group_by][0] == ("s", "carrier")
    # total is no key column of either: a WHERE on it must say whose it is
    assert str(
        _error(
            "SELECT o.total FROM orders o JOIN shipment s ON s.orderId = o.orderId WHERE total > 5"
        )
    ).endswith("(without a qualifier a name must be a key column of one source)")
    assert [s.alias for s in sources] == ["o", "s"]
    assert sources[1].on == statement.joins[0].on and sources[1].entity is not None


def test_a_join_is_not_inserted() -> None:
    session = Session(client=object())  # refused before any request
    with pytest.raises(DynosqlError) as refused:
        session.execute("INSERT INTO t (a) SELECT o.x FROM a o JOIN b ON b.k = o.k")
    assert str(refused.value) == (
        "line 1, column 39: INSERT … SELECT reads one table or entity: a join is not supported "
        "there (COPY (SELECT … JOIN …) TO a file, then COPY FROM it)"
    )
