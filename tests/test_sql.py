"""The SQL front end: statement splitting, parsing into our AST, and every refusal message.

What is accepted is written down in grammar/README.md; these tests pin it, with exact messages
and the line and column each error points at.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

from dynosql.errors import SqlError
from dynosql.session import bind
from dynosql.sql import ast, is_complete, keywords, parse, parse_script, split_script
from dynosql.sql.split import strip_comments
from dynosql.sql.text import sql_text
from dynosql.statements.entities import ShowEntities
from dynosql.statements.hot_keys import ShowHotKeys
from dynosql.statements.setting import SetOption
from dynosql.statements.show import Describe, ShowTables


def where(condition: str) -> ast.Condition:
    statement = parse(f"SELECT * FROM t WHERE {condition}")
    assert isinstance(statement, ast.Select)
    return statement.where


def error(sql: str) -> SqlError:
    with pytest.raises(SqlError) as info:
        parse_script(sql)
    return info.value


def P(*elements: str | int) -> tuple:
    return elements


# --- paths -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "written, elements, text",
    [
        ("a", P("a"), "a"),
        ("a.b.c", P("a", "b", "c"), "a.b.c"),
        ("a[0]", P("a", 0), "a[0]"),
        ("a[0][12]", P("a", 0, 12), "a[0][12]"),
        ("a.b[2].c", P("a", "b", 2, "c"), "a.b[2].c"),
        ('"list-price"', P("list-price"), "list-price"),
        ('"status"', P("status"), "status"),
        ("status", P("status"), "status"),
        ("size", P("size"), "size"),
        ('"a.b"', P("a.b"), '"a.b"'),
        ('"a[1]"', P("a[1]"), '"a[1]"'),
        ('"x"."y"', P("x", "y"), "x.y"),
        ('"my-attr".x[3]', P("my-attr", "x", 3), "my-attr.x[3]"),
        ('"we""ird"', P('we"ird'), 'we"ird'),
        ("Mixed_Case", P("Mixed_Case"), "Mixed_Case"),
        ("meta.geo.country", P("meta", "geo", "country"), "meta.geo.country"),
    ],
)
def test_paths_are_normalised(written: str, elements: tuple, text: str) -> None:
    statement = parse(f"SELECT {written} FROM t WHERE {written} = 1 ORDER BY {written}")
    (item,) = statement.items
    assert item.expr.elements == elements
    assert item.expr.text == text
    assert statement.where.left.elements == elements
    assert statement.order_by[0].expr.elements == elements


def test_path_equality_ignores_position() -> None:
    s = parse("SELECT a.b FROM t WHERE a.b = 1")
    assert s.items[0].expr == s.where.left
    assert s.items[0].expr.pos != s.where.left.pos


@pytest.mark.parametrize(
    "sql, message",
    [
        ("SELECT * FROM t WHERE x[y] = 1", "a list index must be a whole number: a[0]"),
        ("SELECT * FROM t WHERE x[1, 2] = 1", "a list index takes one number: a[0]"),
        ("SELECT a.* FROM t", "a.*: no table or alias a in FROM"),
    ],
)
def test_bad_paths(sql: str, message: str) -> None:
    assert error(sql).message == message


# --- the select list ---------------------------------------------------------------------------


def test_column_names_are_path_text_or_alias() -> None:
    s = parse('SELECT a.b.c, a[0], "list-price", "a.b", meta.geo.country AS country, x y FROM t')
    # "a.b" is the attribute a.b: its column is a.b, no quotes (issue 10)
    assert [i.name for i in s.items] == ["a.b.c", "a[0]", "list-price", "a.b", "country", "y"]
    s = parse("SELECT COUNT(*), count(DISTINCT a.b), sum(n), AVG(n) AS mean, MIN(s), MAX(s) FROM t")
    # named as written (issue 11): the case of the function and DISTINCT as the user typed them
    assert [i.name for i in s.items] == [
        "COUNT(*)",
        "count(DISTINCT a.b)",
        "sum(n)",
        "mean",
        "MIN(s)",
        "MAX(s)",
    ]


def test_aggregates() -> None:
    s = parse("SELECT COUNT(*), COUNT(x), COUNT(DISTINCT a.b), SUM(DISTINCT n), MAX(s) FROM t")
    got = [(a.func, a.path and a.path.elements, a.distinct) for a in (i.expr for i in s.items)]
    assert got == [
        ("COUNT", None, False),
        ("COUNT", ("x",), False),
        ("COUNT", ("a", "b"), True),
        ("SUM", ("n",), True),
        ("MAX", ("s",), False),
    ]
    assert s.is_aggregate and not s.group_by


def test_select_star_distinct_limit_order() -> None:
    s = parse("SELECT * FROM t LIMIT 10")
    assert (s.items, s.limit, s.distinct, s.table, s.index) == (None, 10, False, "t", None)
    s = parse("SELECT DISTINCT x FROM t ORDER BY x DESC, y, 1")
    assert s.distinct
    assert [(o.expr.elements, o.desc) for o in s.order_by] == [
        (("x",), True),
        (("y",), False),
        (("x",), False),
    ]


def test_order_by_alias_resolves_to_its_expression() -> None:
    s = parse("SELECT x AS y FROM t ORDER BY y")
    assert s.order_by[0].expr.elements == ("x",)
    s = parse("SELECT g, COUNT(*) AS n FROM t GROUP BY g HAVING n > 2 ORDER BY n DESC")
    assert s.order_by[0].expr == ast.Aggregate("COUNT", None, False, "COUNT(*)")
    assert s.having.left == ast.Aggregate("COUNT", None, False, "COUNT(*)")
    s = parse("SELECT g, COUNT(*) FROM t GROUP BY g HAVING COUNT(*) > 2 ORDER BY COUNT(*)")
    assert s.group_by == (ast.Path(("g",), "g"),)


@pytest.mark.parametrize(
    "sql, table, index",
    [
        ("SELECT * FROM t", "t", None),
        ("SELECT * FROM t.idx", "t", "idx"),
        ('SELECT * FROM "my-table"."my-index"', "my-table", "my-index"),
        ('SELECT * FROM "t.x"', "t.x", None),
        ("select * from Orders", "Orders", None),
    ],
)
def test_from_table_and_index(sql: str, table: str, index: str | None) -> None:
    s = parse(sql)
    assert (s.table, s.index) == (table, index)


# --- conditions --------------------------------------------------------------------------------


def test_comparisons() -> None:
    c = where("x = 1 AND x <> 2 AND x != 3 AND x < 4 AND x <= 5 AND x > 6 AND x >= 7 AND 8 < x")
    assert [
        (i.op, i.right.value if isinstance(i.right, ast.Literal) else None) for i in c.items
    ] == [
        ("=", 1),
        ("<>", 2),
        ("<>", 3),
        ("<", 4),
        ("<=", 5),
        (">", 6),
        (">=", 7),
        ("<", None),
    ]
    assert c.items[-1].left.value == 8 and c.items[-1].right.elements == ("x",)


def test_boolean_structure_and_negations() -> None:
    c = where("NOT (x = 1 OR y = 2) AND (a = 1 OR b = 2 OR c = 3)")
    assert isinstance(c, ast.And)
    assert isinstance(c.items[0], ast.Not) and isinstance(c.items[0].item, ast.Or)
    assert len(c.items[1].items) == 3
    c = where("x = 1 AND y = 'a' OR z = 2")  # AND binds tighter than OR
    assert isinstance(c, ast.Or) and isinstance(c.items[0], ast.And)
    assert isinstance(where("x NOT IN (1, 2)"), ast.Not)
    assert isinstance(where("x NOT BETWEEN 1 AND 2").item, ast.Between)
    assert where("x IS NOT NULL") == ast.Not(ast.IsNull(ast.Path(("x",), "x")))
    assert where("x IS NULL") == ast.IsNull(ast.Path(("x",), "x"))


def test_between_in_and_functions() -> None:
    b = where("x BETWEEN 1 AND 'z'")
    assert (b.low.value, b.high.value) == (Decimal(1), "z")
    i = where("x IN (1, 'a', TRUE)")
    assert [v.value for v in i.values] == [Decimal(1), "a", True]
    c = where(
        "contains(x, 'a') AND attribute_exists(y) AND attribute_not_exists(z.w) "
        "AND attribute_type(q, 'SS') AND begins_with(r, 'p') AND BEGINS_WITH(s, 'q')"
    )
    assert [(f.name, f.path.elements, f.arg and f.arg.value) for f in c.items] == [
        ("contains", ("x",), "a"),
        ("attribute_exists", ("y",), None),
        ("attribute_not_exists", ("z", "w"), None),
        ("attribute_type", ("q",), "SS"),
        ("begins_with", ("r",), "p"),
        ("begins_with", ("s",), "q"),
    ]


def test_size_is_an_operand() -> None:
    c = where("size(x) > 3 AND 3 < size(y.z) AND size(a) = size(b)")
    assert c.items[0].left == ast.Size(ast.Path(("x",), "x"))
    assert c.items[1].right == ast.Size(ast.Path(("y", "z"), "y.z"))
    assert isinstance(c.items[2].left, ast.Size) and isinstance(c.items[2].right, ast.Size)


def test_literals() -> None:
    c = where(
        "a = TRUE AND b = FALSE AND c = NULL AND d = -1.50 AND e = 1e3 AND f = 'it''s' "
        "AND g = 12345678901234567890123456789012345678 AND h = '' AND i = 'ünï'"
    )
    got = [i.right.value for i in c.items]
    assert got == [
        True,
        False,
        None,
        Decimal("-1.50"),
        Decimal("1E+3"),
        "it's",
        Decimal("12345678901234567890123456789012345678"),
        "",
        "ünï",
    ]
    assert str(got[3]) == "-1.50"  # exact digits, never a float
    assert all(not isinstance(v, float) for v in got)


@pytest.mark.parametrize(
    "pattern, expected",
    [
        ("abc", ast.Compare("=", ast.Path(("x",), "x"), ast.Literal("abc"))),
        ("", ast.Compare("=", ast.Path(("x",), "x"), ast.Literal(""))),
        ("abc%", ast.Function("begins_with", ast.Path(("x",), "x"), ast.Literal("abc"))),
        ("abc%%", ast.Function("begins_with", ast.Path(("x",), "x"), ast.Literal("abc"))),
        ("%abc", ast.Like(ast.Path(("x",), "x"), "%abc")),
        # a literal prefix before the first wildcard becomes a begins_with the planner can use
        (
            "a_c%",
            ast.And(
                (
                    ast.Function("begins_with", ast.Path(("x",), "x"), ast.Literal("a")),
                    ast.Like(ast.Path(("x",), "x"), "a_c%"),
                )
            ),
        ),
        (
            "a%c",
            ast.And(
                (
                    ast.Function("begins_with", ast.Path(("x",), "x"), ast.Literal("a")),
                    ast.Like(ast.Path(("x",), "x"), "a%c"),
                )
            ),
        ),
        ("%", ast.Like(ast.Path(("x",), "x"), "%")),
        ("_", ast.Like(ast.Path(("x",), "x"), "_")),
    ],
)
def test_like_forms(pattern: str, expected: ast.Condition) -> None:
    assert where(f"x LIKE '{pattern}'") == expected
    assert where(f"NOT x LIKE '{pattern}'") == ast.Not(expected)


@pytest.mark.parametrize("pattern", ["abc", "abc%", "%abc"])
def test_not_like_is_negated(pattern: str) -> None:
    assert where(f"x NOT LIKE '{pattern}'") == ast.Not(where(f"x LIKE '{pattern}'"))


LIKE_PATTERNS = ["abc", "", "abc%", "abc%%", "%abc", "a_c%", "a%c", "%", "_", "root/photos/%"]


@pytest.mark.parametrize("pattern", LIKE_PATTERNS)
def test_a_bound_like_pattern_means_what_the_written_one_does(pattern: str) -> None:
    """The plan is chosen from the bound value, not the parameter's shape: ``x LIKE :p`` is,
    once bound, the very condition ``x LIKE '<p>'`` is (begins_with for a prefix)."""
    written = where(f"x LIKE '{pattern}'")
    pending = where("x LIKE :p")
    assert isinstance(pending, ast.LikeParam)
    assert bind(parse("SELECT * FROM t WHERE x LIKE :p"), {"p": pattern}).where == written
    negated = bind(parse("SELECT * FROM t WHERE x NOT LIKE :p"), {"p": pattern}).where
    assert negated == ast.Not(written)


@pytest.mark.parametrize(
    "sqlalchemy, params, written",
    [
        (":p || '%'", {"p": "ab"}, "'ab%'"),  # startswith
        ("'%' || :p", {"p": "ab"}, "'%ab'"),  # endswith
        ("'%' || :p || '%'", {"p": "ab"}, "'%ab%'"),  # contains
        (":p || '%' ESCAPE '/'", {"p": "ab/%c"}, "'ab/%c%' ESCAPE '/'"),  # autoescape
        (":a || :b", {"a": "x", "b": "y%"}, "'xy%'"),
        ("'a%' ESCAPE :e", {"e": "!"}, "'a%' ESCAPE '!'"),
    ],
)
def test_concatenated_patterns_bind_as_one_string(
    sqlalchemy: str, params: dict[str, str], written: str
) -> None:
    bound = bind(parse(f"SELECT * FROM t WHERE x LIKE {sqlalchemy}"), params).where
    assert bound == where(f"x LIKE {written}")


X = ast.Path(("x",), "x")


@pytest.mark.parametrize(
    "pattern, expected",
    [
        ("'ab/%c%' ESCAPE '/'", ast.Function("begins_with", X, ast.Literal("ab%c"))),
        ("'a/bc' ESCAPE '/'", ast.Compare("=", X, ast.Literal("abc"))),  # just itself
        ("'a//%' ESCAPE '/'", ast.Function("begins_with", X, ast.Literal("a/"))),
        ("'%a_b' ESCAPE ''", ast.Like(X, "%a_b")),  # an empty ESCAPE escapes nothing
        ("'%a/_b' ESCAPE '/'", "x LIKE '%a/_b' ESCAPE '/'"),  # a literal _: matched by LIKE()
    ],
)
def test_like_escape(pattern: str, expected: ast.Condition | str) -> None:
    got = where(f"x LIKE {pattern}")
    if isinstance(expected, str):
        assert isinstance(got, ast.Compare) and isinstance(got.left, ast.Scalar)
        assert sql_text(got) == expected
    else:
        assert got == expected


def test_like_refusals() -> None:
    assert error("SELECT * FROM t WHERE x LIKE y").message == (
        "LIKE takes a string pattern (or a :parameter)"
    )
    assert error("SELECT * FROM t WHERE x ILIKE 'a%'").message == (
        "ILIKE is not supported: DynamoDB compares strings exactly"
    )
    assert error("SELECT * FROM t WHERE x LIKE 'a%' ESCAPE '!!'").message == (
        "ESCAPE takes one character, got '!!'"
    )
    assert error("SELECT * FROM t WHERE x LIKE 'a!' ESCAPE '!'").message == (
        "the LIKE pattern 'a!' ends with its ESCAPE character"
    )
    statement = parse("SELECT * FROM t WHERE x LIKE :p")
    with pytest.raises(SqlError) as info:
        bind(statement, {"p": Decimal(5)})
    assert (info.value.message, info.value.col) == ("LIKE takes a string pattern, got 5", 30)


# --- parameters --------------------------------------------------------------------------------


def test_parameters_parse_and_bind() -> None:
    s = parse("SELECT * FROM t WHERE x = :v AND y IN (:a, :b) AND z BETWEEN :lo AND :hi")
    params = [
        s.where.items[0].right,
        *s.where.items[1].values,
        s.where.items[2].low,
        s.where.items[2].high,
    ]
    assert [p.name for p in params] == ["v", "a", "b", "lo", "hi"]
    assert all(isinstance(p, ast.Param) for p in params)
    bound = bind(s, {"v": "x' OR '1'='1", "a": Decimal(1), "b": "2", "lo": 0, "hi": True})
    assert bound.where.items[0].right.value == "x' OR '1'='1"
    assert [v.value for v in bound.where.items[1].values] == [Decimal(1), "2"]
    assert (bound.where.items[2].low.value, bound.where.items[2].high.value) == (0, True)


def test_unbound_parameter_is_an_error_naming_it() -> None:
    s = parse("SELECT * FROM t WHERE x = :missing")
    with pytest.raises(SqlError) as info:
        bind(s, {})
    assert info.value.message == "no value for :missing (give one with -v missing=value)"


def test_parameter_positions() -> None:
    s = parse("SELECT * FROM t\nWHERE x = :v AND\n  y = :w")
    assert s.where.items[0].right.pos == ast.Pos(2, 11)
    assert s.where.items[1].right.pos == ast.Pos(3, 7)


def test_positional_parameters_are_named_by_their_place() -> None:
    s = parse("SELECT * FROM t WHERE x = ? AND y = :y AND z = ?")
    assert [c.right for c in s.where.items] == [ast.Param("1"), ast.Param("y"), ast.Param("2")]


# --- positions ---------------------------------------------------------------------------------


def test_positions_of_single_paths_literals_and_tables() -> None:
    s = parse("SELECT x,\n  y\n  FROM t\n WHERE z = 'v'")
    assert [i.expr.pos for i in s.items] == [ast.Pos(1, 8), ast.Pos(2, 3)]
    assert s.table_pos == ast.Pos(3, 8)
    assert s.where.left.pos == ast.Pos(4, 8)
    assert s.where.right.pos == ast.Pos(4, 12)


def test_dotted_path_position_is_its_first_name() -> None:
    s = parse('SELECT a.b.c, "x"."y" FROM t')
    assert [i.expr.pos for i in s.items] == [ast.Pos(1, 8), ast.Pos(1, 15)]


# --- statement splitting -----------------------------------------------------------------------


def test_split_ignores_semicolons_in_strings_identifiers_and_comments() -> None:
    script = (
        "SELECT 'a;b' FROM t; -- c;\n"
        'SELECT "x;y" FROM u /* ; */;\n'
        "\n"
        "  SELECT 'it''s;' FROM v;;  ; -- end\n"
    )
    chunks = split_script(script)
    assert [c.text.strip() for c in chunks] == [
        "SELECT 'a;b' FROM t",
        '-- c;\nSELECT "x;y" FROM u /* ; */',
        "SELECT 'it''s;' FROM v",
    ]
    assert [(c.line, c.col) for c in chunks] == [(1, 1), (1, 21), (2, 29)]


def test_split_skips_empty_statements() -> None:
    assert split_script("") == []
    assert split_script("  ;; -- only a comment\n/* and ; this */ ;") == []
    assert parse_script("  -- only\n;;") == []


def test_chunk_positions_map_back_to_the_script() -> None:
    (first, second) = split_script("SELECT * FROM a;\n  SELECT *\nFROM b")
    assert (second.line, second.col) == (1, 17)
    assert second.to_script(1, 3) == (1, 19)
    assert second.to_script(3, 6) == (3, 6)


def test_parse_script_positions_across_lines_and_statements() -> None:
    statements = parse_script("SELECT a FROM t1;\nSELECT b\n  FROM t2; SELECT c FROM t3")
    assert [s.table for s in statements] == ["t1", "t2", "t3"]
    assert statements[1].items[0].expr.pos == ast.Pos(2, 8)
    assert statements[1].table_pos == ast.Pos(3, 8)
    assert statements[2].items[0].expr.pos == ast.Pos(3, 19)


def test_is_complete() -> None:
    assert is_complete("SELECT 1;")
    assert is_complete("SELECT 1; -- trailing comment")
    assert is_complete("SELECT 1;\n")
    assert not is_complete("SELECT ';'")
    assert not is_complete("SELECT 1 /* ; */")
    assert not is_complete('SELECT "a;')
    assert not is_complete("SELECT 1")


def test_strip_comments_keeps_positions() -> None:
    text = "a -- b\nc /* d\ne */ 'f -- g' \"h /* i */\""
    stripped = strip_comments(text)
    assert len(stripped) == len(text)
    assert stripped == "a     \nc     \n     'f -- g' \"h /* i */\""


def test_parse_takes_exactly_one_statement() -> None:
    assert isinstance(parse("SELECT * FROM t;"), ast.Select)
    with pytest.raises(SqlError) as info:
        parse("SELECT * FROM a;\nSELECT * FROM b")
    assert str(info.value) == "line 1, column 17: expected one statement, found several"
    with pytest.raises(SqlError) as info:
        parse("  -- nothing\n")
    assert str(info.value) == "empty statement"


# --- other statements --------------------------------------------------------------------------


def test_explain() -> None:
    e = parse("EXPLAIN SELECT * FROM t WHERE x = 1")
    assert isinstance(e, ast.Explain) and not e.analyze
    assert e.statement.where.left.pos == ast.Pos(1, 31)
    e = parse("explain analyze select x from t")
    assert e.analyze and e.statement.items[0].expr.elements == ("x",)


def test_explain_keeps_positions_on_one_line() -> None:
    assert str(error("EXPLAIN SELECT * FROM a WHERE x = = 1")) == (
        "line 1, column 35: incomplete expression near '='"
    )


def test_explain_keeps_positions_across_lines() -> None:
    err = error("EXPLAIN\n  ANALYZE SELECT * FROM a\n WHERE x == = 1")
    assert (err.line, err.col) == (3, 13)


@pytest.mark.parametrize(
    "sql, expected",
    [
        ("SHOW TABLES", ShowTables()),
        ("show tables;", ShowTables()),
        ("DESCRIBE orders", Describe("orders")),
        ("DESC orders", Describe("orders")),
        ('describe table "my-t"', Describe("my-t")),
        ("SHOW HOT KEYS FROM t", ShowHotKeys("t")),
        ("SHOW HOT KEYS FROM t.idx LIMIT 5", ShowHotKeys("t", "idx", 5)),
        ('show hot keys from "a-b"."c" limit 3', ShowHotKeys("a-b", "c", 3)),
        ("SET segments = 4", SetOption("segments", "4")),
        ("SET consistent TO on", SetOption("consistent", "on")),
        ("SET format = 'json'", SetOption("format", "json")),
        ("set Max_RCU = 10", SetOption("max_rcu", "10")),
        ("SHOW ENTITIES FROM drive", ShowEntities("drive")),
        ('show entities from "my-table" sample 200', ShowEntities("my-table", 200)),
        ("SHOW ENTITIES FROM t AS CREATE", ShowEntities("t", as_create=True)),
        ("show entities from t sample 5 as create;", ShowEntities("t", 5, as_create=True)),
    ],
)
def test_other_statements(sql: str, expected: ast.Statement) -> None:
    assert parse(sql) == expected


def test_other_statement_refusals() -> None:
    assert (
        str(error("DESCRIBE a.b")) == "line 1, column 12: DESCRIBE takes a table name, not an index"
    )
    known = STATEMENTS.split(", ")
    named = OTHERS.removeprefix("a statement starts with ").replace(" or ", ", ").split(", ")
    assert [w for w in named if w in known] == known
    # the SHOW statements, as completion offers them (a SHOW kind added since adds its own)
    shows = [
        "TABLES",
        "HOT KEYS FROM table",
        "ENTITIES [FROM table]",
        "CREATE TABLE t",
        "CREATE ENTITY e",
    ]
    assert str(error("SHOW COLUMNS")) == "line 1, column 1: " + keywords.show_expected()
    named = keywords.show_expected().removeprefix("expected ").replace(" or ", ", ").split(", ")
    assert {f"SHOW {w}" for w in shows} <= set(named)
    assert len(named) == len(set(named))  # SHOW ENTITIES and SHOW ENTITIES FROM: named once
    # the statements EXPLAIN takes (a kind added since that EXPLAIN takes adds its own)
    explained = [s.word for s in keywords.STARTERS if s.explain]
    explain_takes = f"line 1, column 9: EXPLAIN takes {keywords.listing(explained)}"
    known = "SELECT CREATE ALTER DROP COPY INSERT UPSERT REPLACE UPDATE DELETE IMPORT".split()
    assert [w for w in explained if w in known] == known
    assert str(error("EXPLAIN SHOW TABLES")) == explain_takes
    assert str(error("EXPLAIN SET consistent = on")) == explain_takes
    assert str(error("EXPLAIN (SELECT * FROM a)")) == explain_takes
    # a SET that is not SET name = value says what SET takes (it was "SET is not supported:
    # a statement starts with …, SET or DESCRIBE")
    set_takes = "SET takes a setting and its value: SET name = value (or SET name TO value)"
    assert str(error("SET")) == f"line 1, column 1: {set_takes}"
    assert str(error("SELECT 1;\n  set format vertical")) == f"line 2, column 3: {set_takes}"


# --- refusals: every message, exactly ----------------------------------------------------------

# every statement's leading words: CORE's, then those the kind modules declare (a kind added
# since adds its own: test_other_statement_refusals checks these are named, in this order)
STATEMENTS = (
    "SELECT, EXPLAIN, SHOW, CREATE, ALTER, DROP, COPY, INSERT, UPSERT, REPLACE, UPDATE, DELETE, "
    "BEGIN, START TRANSACTION, COMMIT, ROLLBACK, EXISTS, UNDO, IMPORT, EXPORT, SET, DESCRIBE"
)
OTHERS = "a statement starts with " + keywords.listing([s.lead for s in keywords.STARTERS])
COMMA = "FROM a, b is not supported: write the join as JOIN b ON …"
RIGHT = "RIGHT JOIN is not supported: put the source whose rows are kept first and write LEFT JOIN"
DIGITS39 = "123456789012345678901234567890123456789"
IN1001 = ", ".join(str(n) for n in range(1001))

# (sql, message, line): the message exactly, and the line it is reported on
REFUSALS = [
    ("SELECT * FROM a RIGHT JOIN b ON a.x = b.x", RIGHT, 1),
    ("SELECT * FROM a;\nSELECT * FROM b\n  RIGHT JOIN c ON b.x = c.x", RIGHT, 3),
    ("SELECT * FROM a, b", COMMA, 1),
    ("SELECT * FROM a WHERE x IN (SELECT y FROM b)", "subqueries are not supported", 1),
    ("SELECT * FROM a;\nSELECT * FROM b WHERE x IN (\n  SELECT y FROM c)", "subqueries are not supported", 3),
    ("SELECT * FROM (SELECT * FROM a)", "subqueries are not supported", 1),
    ("SELECT * FROM a WHERE EXISTS (SELECT 1 FROM b)", "subqueries are not supported", 1),
    ("SELECT x FROM a UNION SELECT x FROM b", "UNION is not supported", 1),
    ("SELECT x FROM a UNION ALL SELECT x FROM b", "UNION is not supported", 1),
    ("SELECT x FROM a INTERSECT SELECT x FROM b", "INTERSECT is not supported", 1),
    ("SELECT x FROM a EXCEPT SELECT x FROM b", "EXCEPT is not supported", 1),
    ("SELECT ROW_NUMBER() OVER (ORDER BY x) FROM a", "window functions are not supported", 1),
    ("SELECT * FROM a WHERE RANK() OVER (ORDER BY x) = 1", "window functions are not supported", 1),
    ("SELECT x FROM a WHERE y = 1 QUALIFY ROW_NUMBER() OVER (ORDER BY x) = 1", "QUALIFY is not supported", 1),
    ("WITH t AS (SELECT * FROM a) SELECT * FROM t", "WITH (common table expressions) is not supported", 1),
    ("SELECT * FROM a LIMIT 5 OFFSET 3", "OFFSET is not supported: DynamoDB pages by key, not by position", 1),
    ("SELECT * FROM a LIMIT 1, 2", "OFFSET is not supported: DynamoDB pages by key, not by position", 1),
    ("CREATE TABLE a (x INT)", "expected a key type: S, N or B (STRING, NUMBER, BINARY), got 'INT'", 1),
    ("DROP VIEW a", "expected TABLE or INDEX, got 'VIEW'", 1),
    ("SELECT x INTO b FROM a", "SELECT INTO is not supported: dynosql only reads", 1),
    ("EXPLAIN INSERT INTO a VALUES (1, 2), (3)", "1 value, 2 in the first row", 1),
    ("GRANT ALL ON a TO b", f"GRANT is not supported: {OTHERS}", 1),
    ("MERGE INTO a USING b ON a.x = b.x WHEN MATCHED THEN DELETE", f"MERGE is not supported: {OTHERS}", 1),
    ("ALTER TABLE a ADD COLUMN x INT", "expected SET, got 'ADD'", 1),
    ("SELECT * FROM a WHERE foo(x)", "unknown function foo()", 1),
    ("SELECT * FROM a WHERE bar(x) = 1", "unknown function bar()", 1),
    ("SELECT * FROM a WHERE lowr(x) = 'a'", "unknown function lowr(): did you mean LOWER()?", 1),
    ("SELECT * FROM a WHERE x::date = 1", "CAST(x AS DATE) is not supported: CAST takes AS NUMBER, INTEGER, DECIMAL(p, s), FLOAT, STRING, VARCHAR(n), BOOLEAN or BINARY", 1),
    ("SELECT 1 FROM a", "1 is not supported in the select list: select attribute paths, aggregates or expressions over them", 1),
    ("SELECT x = 1 FROM a", "x = 1 is not supported in the select list: select attribute paths, aggregates or expressions over them", 1),
    ("SELECT substr(x) FROM a", "substr() takes 2 or 3 arguments: SUBSTR(s, start[, length])", 1),
    ("SELECT SUBSTRING(x, 1, 2, 3) FROM a", "SUBSTRING() takes 2 or 3 arguments: SUBSTR(s, start[, length])", 1),
    ("SELECT round(x, 1, 2) FROM a", "round() takes 1 or 2 arguments: ROUND(x[, places])", 1),
    ("SELECT DATE_TRUNC('week', ts) FROM a", "DATE_TRUNC() takes a unit first: one of 'month', 'day', 'hour', 'minute', 'year', 'second'", 1),
    ("SELECT from_unixtime(a, b) FROM a", "from_unixtime() takes 1 argument (epoch seconds)", 1),
    ("SELECT * FROM a WHERE lower(x)", "LOWER(x) is not a condition: compare it, e.g. LOWER(x) = …", 1),
    ("SELECT x, COUNT(*) FROM a GROUP BY 2", "GROUP BY 2: that column is an aggregate", 1),
    ("SELECT x FROM a GROUP BY 3", "GROUP BY 3: no such column position", 1),
    ("SELECT x FROM a GROUP BY COUNT(*)", "aggregates are not allowed in GROUP BY", 1),
    ("SELECT x + 1, COUNT(*) FROM a GROUP BY y", "x must appear in GROUP BY or be inside an aggregate", 1),
    (f"SELECT * FROM a WHERE x = {DIGITS39}", f"number {DIGITS39} has more than 38 significant digits", 1),
    (f"SELECT * FROM a WHERE x = -{DIGITS39}", f"number -{DIGITS39} has more than 38 significant digits", 1),
    (f"SELECT *\n  FROM a\n WHERE x =\n   {DIGITS39}", f"number {DIGITS39} has more than 38 significant digits", 4),
    (f"SELECT * FROM a WHERE x IN ({IN1001})", "IN takes at most 1000 values (each key one request, or 100 a BatchGetItem), found 1001", 1),
    ("SELECT * FROM a WHERE x IN ()", "IN needs at least one value", 1),
    ("SELECT * FROM a GROUP BY x", "SELECT * cannot be combined with GROUP BY or aggregates", 1),
    ("SELECT *, COUNT(*) FROM a", "* cannot be combined with other columns", 1),
    ("SELECT x, y FROM a GROUP BY x", "y must appear in GROUP BY or be inside an aggregate", 1),
    ("SELECT x,\n  y\nFROM a GROUP BY x", "y must appear in GROUP BY or be inside an aggregate", 2),
    ("SELECT x, COUNT(*) FROM a", "x must appear in GROUP BY or be inside an aggregate", 1),
    ("SELECT x FROM a HAVING x > 1", "HAVING needs GROUP BY or an aggregate", 1),
    ("SELECT x, COUNT(*) FROM a GROUP BY x ORDER BY y", "ORDER BY y: order by a grouped column or an aggregate", 1),
    ("SELECT * FROM a WHERE COUNT(*) > 1", "aggregates are not allowed in WHERE; use HAVING", 1),
    ("SELECT SUM(*) FROM a", "SUM(*) is not supported; only COUNT(*)", 1),
    ("SELECT COUNT(x, y) FROM a", "COUNT() takes one argument", 1),
    ("SELECT COUNT() FROM a", "COUNT() takes one argument: * or an attribute path", 1),
    ("SELECT DISTINCT ON (x) x FROM a", "DISTINCT ON is not supported", 1),
    ("SELECT * FROM a t(x, y)", "a table alias is one name: FROM t AS a", 1),
    ("SELECT * FROM c.d.e", "FROM takes table or table.index, not three names", 1),
    ("SELECT * FROM a ORDER BY 3", "ORDER BY 3: no such column position", 1),
    (
        "SELECT * FROM a LIMIT 'x'",
        "LIMIT takes a whole number, a :parameter or + - * / of them (LIMIT 1 + 2)",
        1,
    ),
    ("SELECT * FROM a LIMIT -1", "LIMIT takes a whole number from 0 to 2147483647, got -1", 1),
    (
        "SELECT * FROM a WHERE x IS 5",
        "IS takes NULL, MISSING or a type (STRING, NUMERIC, BOOLEAN, BLOB, LIST, STRUCT), each "
        "with or without NOT",
        1,
    ),
    ("SELECT * FROM a WHERE 1 IS DISTINCT FROM :p", "a comparison needs an attribute on one side", 1),
    ("SELECT * FROM a WHERE 1 = 1", "a comparison needs an attribute on one side", 1),
    ("SELECT * FROM a WHERE TRUE", "TRUE is not a condition: compare an attribute to it", 1),
    ("SELECT * FROM a WHERE size(x)", "size() must be compared: size(p) > 3", 1),
    ("SELECT * FROM a WHERE begins_with(x)", "begins_with() takes 2 arguments", 1),
    ("SELECT * FROM a WHERE attribute_exists(x, y)", "attribute_exists() takes 1 argument", 1),
    ("SELECT * FROM a WHERE attribute_type(x, y)", "attribute_type() takes a type name: 'S', 'N', ...", 1),
    ("SELECT * FROM a WHERE attribute_type(x, 'Q')", "attribute_type(): unknown type 'Q'; one of S, N, B, BOOL, NULL, L, M, SS, NS, BS", 1),
    ("SELECT * FROM a WHERE x IN (SELECT 1)", "subqueries are not supported", 1),
    ("EXPLAIN (FORMAT PYTHON) SELECT 1", "EXPLAIN (FORMAT PYTHON) of a SELECT without FROM: it sends no request, so there is nothing to write for DynamoDB (EXPLAIN alone shows the row it computes)", 1),
    ("SELECT CAST(x AS TIMESTAMP) FROM a", "CAST(x AS TIMESTAMP) is not supported: CAST takes AS NUMBER, INTEGER, DECIMAL(p, s), FLOAT, STRING, VARCHAR(n), BOOLEAN or BINARY", 1),
    ("SELECT CAST(x AS DECIMAL(39, 2)) FROM a", "DECIMAL(39, 2): DECIMAL takes a precision of 1 to 38 (DynamoDB's digits) and a scale: DECIMAL(10, 2)", 1),
    ("SELECT CAST(x AS NUMERIC(5, 6)) FROM a", "DECIMAL(5, 6): the scale is 0 to the precision: DECIMAL(10, 2)", 1),
    ("SELECT x FROM a\nWHERE CAST(x AS VARCHAR(0)) = 'a'", "VARCHAR(0): a length is at least 1", 2),
]  # fmt: skip


@pytest.mark.parametrize("sql, message, line", REFUSALS)
def test_refusal_messages(sql: str, message: str, line: int) -> None:
    err = error(sql)
    assert err.message == message
    assert err.line == line
    assert str(err).startswith(f"line {line}, column ")


# (sql, the whole error text): refusals whose column already points at the construct
REFUSALS_AT = [
    ("SELECT * FROM a, b", f"line 1, column 16: {COMMA}"),
    ("SELECT *\n  FROM a\n  LEFT JOIN b ON b.x = a.x\n  RIGHT JOIN c ON c.y = b.y", f"line 4, column 3: {RIGHT}"),
    ("SELECT * FROM a WHERE foo(x)", "line 1, column 23: unknown function foo()"),
    ("SELECT x,\n substring(y) FROM a", "line 2, column 2: substring() takes 2 or 3 arguments: SUBSTR(s, start[, length])"),
    (f"SELECT * FROM a WHERE x = {DIGITS39}", f"line 1, column 27: number {DIGITS39} has more than 38 significant digits"),
    (f"SELECT *\n  FROM a\n WHERE x =\n   {DIGITS39}", f"line 4, column 4: number {DIGITS39} has more than 38 significant digits"),
    (f"SELECT * FROM a WHERE x IN ({IN1001})", "line 1, column 23: IN takes at most 1000 values (each key one request, or 100 a BatchGetItem), found 1001"),
    ("SELECT x,\n  y\nFROM a GROUP BY x", "line 2, column 3: y must appear in GROUP BY or be inside an aggregate"),
    ("SELECT x, COUNT(*) FROM a GROUP BY x ORDER BY y", "line 1, column 47: ORDER BY y: order by a grouped column or an aggregate"),
    ("SELECT * FROM a WHERE COUNT(*) > 1", "line 1, column 23: aggregates are not allowed in WHERE; use HAVING"),
    ("SELECT * FROM a t(x)", "line 1, column 17: a table alias is one name: FROM t AS a"),
    ("SELECT * FROM a ORDER BY 3", "line 1, column 26: ORDER BY 3: no such column position"),
    ("SELECT * FROM a WHERE x ILIKE 'a%'", "line 1, column 23: ILIKE is not supported: DynamoDB compares strings exactly"),
    ("SELECT * FROM a;\nSELECT x\n  FROM t\n WHERE y = 1 AND foo(z);", "line 4, column 18: unknown function foo()"),
    ("SELECT x FROM a\nWHERE y = 1 AND CAST(x AS DATE) = 1", "line 2, column 17: CAST(x AS DATE) is not supported: CAST takes AS NUMBER, INTEGER, DECIMAL(p, s), FLOAT, STRING, VARCHAR(n), BOOLEAN or BINARY"),
    ("SELECT x FROM a\nWHERE y = 1 AND\n  :p IS DISTINCT FROM 2", "line 3, column 3: a comparison needs an attribute on one side"),
]  # fmt: skip


@pytest.mark.parametrize("sql, text", REFUSALS_AT)
def test_refusal_positions(sql: str, text: str) -> None:
    assert str(error(sql)) == text


# (sql, acceptable columns on line 1): where the column should point but does not yet
REFUSALS_MISPLACED = [
    ("SELECT * FROM a WHERE x IN (SELECT y FROM b)", {28, 29}),
    ("SELECT * FROM (SELECT * FROM a)", {15, 16}),
    ("SELECT * FROM a WHERE EXISTS (SELECT 1 FROM b)", {23, 30, 31}),
    ("SELECT x FROM a UNION SELECT x FROM b", {17}),
    ("SELECT ROW_NUMBER() OVER (ORDER BY x) FROM a", {8, 21}),
    ("WITH t AS (SELECT * FROM a) SELECT * FROM t", {1}),
    ("SELECT * FROM a LIMIT 5 OFFSET 3", {25, 32}),
    ("GRANT ALL ON a TO b", {1}),
    ("SELECT * FROM a GROUP BY x", {8}),
    ("SELECT * FROM a WHERE 1 = 1", {23}),
]


@pytest.mark.parametrize("sql, columns", REFUSALS_MISPLACED)
def test_refusal_points_at_the_construct(sql: str, columns: set[int]) -> None:
    err = error(sql)
    assert err.line == 1 and err.col in columns


def test_count_distinct_star_message() -> None:
    assert error("SELECT COUNT(DISTINCT *) FROM a").message == (
        "COUNT(DISTINCT *) is not supported; only COUNT(*)"
    )


def test_truncate_message() -> None:
    assert error("TRUNCATE TABLE a").message == "TRUNCATE is not supported: dynosql only reads"


def test_nulls_first_last_per_order_item() -> None:
    s = parse("SELECT x FROM t ORDER BY x DESC NULLS LAST, a[0], y nulls first, z LIMIT 3")
    assert [(o.desc, o.nulls) for o in s.order_by] == [
        (True, "LAST"),
        (False, None),
        (False, "FIRST"),
        (False, None),
    ]


@pytest.mark.parametrize("number", ["1e500", "1e-200"])
def test_number_out_of_range_is_refused(number: str) -> None:
    assert "range" in error(f"SELECT * FROM t WHERE x = {number}").message


# --- syntax errors -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "script, line, col, near",
    [
        ("SELECT * FROM a;\nSELECT * FROM b;\nSELECT * FROM c WHERE x = = 1;", 3, 27, "'='"),
        ("SELECT * FROM a;\nSELECT * FROM b; SELECT * FROM c WHERE x = = 1;", 2, 44, "'='"),
        (
            "SELECT * FROM a;\n-- comment; with semicolon\n/* block ; comment */ SELECT * FROM b\n"
            "  WHERE x = 'a;b' AND\n    y === 2;",
            5,
            9,
            "'='",
        ),
        ("-- hi\nSELECT * FROM a WHERE x = = 1", 2, 27, "'='"),
        ("SELECT * FROM a;\nSELECT *\nFROM b\nWHERE x = :", 4, 11, "':'"),
        ("SELECT * FROM a WHERE", 1, 17, "'WHERE'"),
        ("SELECT * FROM a WHERE x = 1)", 1, 28, "')'"),
        ("SELECT * FROM a WHERE (x = 1", 1, 28, "'1'"),
        ("SELECT * FROM a WHERE x BETWEEN 1", 1, 33, "'1'"),
    ],
)
def test_syntax_errors_point_at_line_and_column(
    script: str, line: int, col: int, near: str
) -> None:
    err = error(script)
    assert (err.line, err.col) == (line, col)
    assert f"near {near}" in err.message
    assert str(err) == f"line {line}, column {col}: {err.message}"


@pytest.mark.parametrize(
    "script, where, message",
    [
        ("SELECT * FROM a;\nSELECT * FROM b;\n\n  SELEC * FROM c", (4, 3), "unknown word SELEC: did you mean SELECT?"),
        ("SELECT * FORM a", (1, 10), "unknown word FORM: did you mean FROM?"),
        ("SELECT * FROM a LIMT 5", (1, 17), "unknown word LIMT: did you mean LIMIT?"),
        ("SELECT * FROM a\n WHER x = 1", (2, 2), "unknown word WHER: did you mean WHERE?"),
        ("SELECT x FROM a GROUPBY x", (1, 17), "unknown word GROUPBY: did you mean GROUP BY?"),
        ("SELECT * FROM a WHERE begin_with(x, 'a')", (1, 23), "unknown function begin_with(): did you mean begins_with()?"),
        # several at once (issue 23), where each one is sure: the statement parses with all
        # of them corrected and not without this one; an attribute named form stays a name
        ("SELEC * FORM drive LIMT 3", (1, 1), "unknown words SELEC, FORM, LIMT: did you mean SELECT, FROM, LIMIT?"),
        ("SELECT * FORM drive LIMT 3", (1, 10), "unknown words FORM, LIMT: did you mean FROM, LIMIT?"),
        ("SELECT x FROM a GROUPBY x ORDR BY x", (1, 17), "unknown words GROUPBY, ORDR: did you mean GROUP BY, ORDER?"),
        ("SELECT form FROM drive WHER x = 1", (1, 24), "unknown word WHER: did you mean WHERE?"),
        ("SELECT * FROM a WHERE foo(x)", (1, 23), "unknown function foo()"),
        # a name that looks like a keyword is left alone: the error stays where it is
        ("SELECT * FROM orders WHERE x = = 1", (1, 32), "incomplete expression near '='"),
        (
            "SELECT * FROM t\nWHERE x = 1 AND\n ts > TIMESTAMP '2024-01-01'",
            (3, 7),
            "TIMESTAMP '2024-01-01' is not supported: DynamoDB has no date type; compare the stored text, e.g. '2024-01-01'",
        ),
    ],
)  # fmt: skip
def test_did_you_mean_points_at_the_users_text(script: str, where: tuple, message: str) -> None:
    err = error(script)
    assert ((err.line, err.col), err.message) == (where, message)


def test_syntax_error_messages() -> None:
    assert error("SELECT * FROM a WHERE x = = 1").message == "incomplete expression near '='"
    assert error("SELECT * FROM a WHERE x = 1)").message == "unexpected near ')'"
    assert error("SELECT * FROM a WHERE (x = 1").message == "expected ) near '1'"


def test_errors_stop_the_whole_script_before_anything_runs() -> None:
    with pytest.raises(SqlError) as info:
        parse_script("SELECT * FROM a;\nSELECT * FROM b;\nSELECT * FROM c WHERE foo(x);")
    assert (info.value.line, info.value.message) == (3, "unknown function foo()")


@pytest.mark.parametrize(
    "script, line, col",
    [
        ("SELECT * FROM a WHERE x = 'unterminated", 1, 27),
        ('SELECT * FROM a;\nSELECT * FROM t WHERE "x = 1', 2, 23),
    ],
)
def test_unterminated_quotes(script: str, line: int, col: int) -> None:
    err = error(script)
    assert (err.line, err.col) == (line, col)
    assert "unterminated" in err.message


def test_empty_column_is_a_syntax_error() -> None:
    assert error("SELECT a,, b FROM t").line == 1


def test_limit_beyond_dynamodbs_32_bit_limit_is_refused() -> None:
    err = error("SELECT a FROM t LIMIT 99999999999999999999999")
    assert (err.line, err.col, err.message) == (
        1,
        23,
        "LIMIT takes a whole number from 0 to 2147483647, got 99999999999999999999999",
    )  # as LIMIT 99999999999999999999998 + 1 says


def test_limit_takes_a_constant_expression_folded_when_parsed_or_bound() -> None:
    """LIMIT 1 + 2 is LIMIT 3; SQLAlchemy's limit(literal(1) + 2) sends LIMIT :param_1 +
    :param_2, folded once bound; anything else is refused in one line at its start."""
    for sql, n in [("1 + 2", 3), ("(2)", 2), ("2 * (3 - 1)", 4), ("-(1 - 3)", 2), ("9 / 3", 3)]:
        assert parse(f"SELECT a FROM t LIMIT {sql}").limit == n, sql
    assert parse("SELECT 1 AS one LIMIT 0 + 1").limit == 1
    sent = parse("SELECT a FROM t LIMIT :param_1 + :param_2")
    assert bind(sent, {"param_1": Decimal(1), "param_2": Decimal(2)}).limit == 3
    for sql, params, at, message in [
        ("1 - 5", {}, 23, "LIMIT takes a whole number from 0 to 2147483647, got -4"),
        ("7 / 2", {}, 23, "LIMIT takes a whole number from 0 to 2147483647, got 3.5"),
        ("2 / (1 - 1)", {}, 23, "LIMIT divides by zero"),
        (":n * 2", {"n": "x"}, 23, "LIMIT takes a whole number from 0 to 2147483647, got 'x'"),
        (
            ":n * 2",
            {"n": Decimal(2**30)},
            23,
            "LIMIT takes a whole number from 0 to 2147483647, got 2147483648",
        ),
        (
            "a + 1",
            None,
            23,
            "LIMIT takes a whole number, a :parameter or + - * / of them (LIMIT 1 + 2)",
        ),
        (
            "size(a)",
            None,
            23,
            "LIMIT takes a whole number, a :parameter or + - * / of them (LIMIT 1 + 2)",
        ),
    ]:
        with pytest.raises(SqlError) as err:
            statement = parse(f"SELECT a FROM t\n LIMIT {sql}")
            if params is not None:
                bind(statement, params)
        assert (err.value.line, err.value.col, err.value.message) == (2, at - 15, message), sql


def test_two_columns_of_one_name_are_refused() -> None:
    err = error("SELECT PK AS a, SK AS a FROM t")
    assert err.message == "two columns are named a: give one an alias (AS …)"


def test_one_name_may_repeat_for_one_computation() -> None:
    """A row holds one value a name (json writes objects): SQLAlchemy's ``select(t.c.data,
    t.c.data.label("data"))`` names one attribute twice, and is two columns of one value."""
    s = parse('SELECT data, "data" AS data, COUNT(*), count(*) FROM t GROUP BY data')
    assert isinstance(s, ast.Select) and s.items is not None
    assert [i.name for i in s.items] == ["data", "data", "COUNT(*)", "count(*)"]
    assert error("SELECT a + 1 AS x, a + 2 AS x FROM t").col == 20


# --- a SELECT without FROM ----------------------------------------------------------------------


def test_a_select_without_from_is_one_row_of_values() -> None:
    s = parse("SELECT 1 + 1, 'a' AS s, :p, -5, CAST('5' AS INTEGER) AS n WHERE :a = :b LIMIT :n")
    assert isinstance(s, ast.SelectValues)
    assert [i.name for i in s.items] == ["1 + 1", "s", ":p", "-5", "n"]
    bound = bind(s, {"p": "x", "a": Decimal(1), "b": Decimal(2), "n": Decimal(0)})
    assert bound.limit == 0 and bound.items[2].expr.args == (ast.Literal("x"),)
    assert sql_text(bound.where) == "1 = 2"
    explained = parse("EXPLAIN SELECT 1")
    assert isinstance(explained, ast.Explain)
    assert isinstance(explained.statement, ast.SelectValues)


@pytest.mark.parametrize(
    "sql, message, col",
    [
        ("SELECT a + 1", "a names an attribute, and a SELECT without FROM reads none: SELECT a FROM table", 8),
        ("SELECT 1 WHERE x.y = 1", "x.y names an attribute, and a SELECT without FROM reads none: SELECT x.y FROM table", 16),
        ("SELECT COUNT(*)", "COUNT() needs FROM table: a SELECT without FROM computes one row from values", 8),
        ("SELECT *", "SELECT * needs FROM table: a SELECT without FROM computes one row from values", 8),
        ("SELECT 1 ORDER BY 1", "ORDER BY needs FROM table: a SELECT without FROM computes one row from values", 10),
        ("SELECT 1\n GROUP BY 1", "GROUP BY needs FROM table: a SELECT without FROM computes one row from values", 2),
        ("SELECT ITEM_SIZE()", "ITEM_SIZE() sizes an item: it needs FROM table", 8),
        ("SELECT 1 AS x, 2 AS x", "two columns are named x: give one an alias (AS …)", 16),
    ],
)  # fmt: skip
def test_a_select_without_from_refuses_what_needs_a_table(sql: str, message: str, col: int) -> None:
    err = error(sql)
    assert (err.message, err.col) == (message, col)


@pytest.mark.parametrize(
    "sql, names",
    [
        ("SELECT 1 WHERE NULL IS NOT DISTINCT FROM 1", ["1"]),
        ("SELECT 1 + 1, ROUND(1.25, 1) LIMIT 1", ["1 + 1", "ROUND(1.25, 1)"]),
        ("SELECT 'a, b' -- the end\n", ["'a, b'"]),
        ("SELECT a /* one */ + 1, CASE WHEN a IS DISTINCT FROM b THEN 1 END FROM t", ["a + 1", "CASE WHEN a IS DISTINCT FROM b THEN 1 END"]),
    ],
)  # fmt: skip
def test_a_column_is_named_as_written_less_comments(sql: str, names: list[str]) -> None:
    s = parse(sql)
    assert isinstance(s, ast.Select | ast.SelectValues) and s.items is not None
    assert [i.name for i in s.items] == names


def test_two_values_are_compared_client_side_without_from() -> None:
    s = parse("SELECT 1 WHERE 1 IS DISTINCT FROM NULL")
    assert isinstance(s, ast.SelectValues)
    assert sql_text(s.where) == "NOT (1 IS NOT DISTINCT FROM NULL)"


def test_a_select_of_a_table_still_needs_from_where_a_table_is_read() -> None:
    """Inside EXISTS(…), COPY (…) and INSERT … SELECT a SELECT reads a table: FROM is needed."""
    assert error("COPY (SELECT 1) TO 'x.csv'").message == "expected FROM table"


# --- IS [NOT] DISTINCT FROM, a boolean attribute alone ------------------------------------------


@pytest.mark.parametrize(
    "condition, text",
    [
        ("a IS NOT DISTINCT FROM 1", "a = 1"),
        ("1 IS NOT DISTINCT FROM a", "a = 1"),
        ("a IS DISTINCT FROM 'x'", "NOT (a = 'x')"),
        ("a IS NOT DISTINCT FROM NULL", "attribute_not_exists(a) OR a IS NULL"),
        ("a IS DISTINCT FROM NULL", "NOT (attribute_not_exists(a) OR a IS NULL)"),
        (
            "a IS NOT DISTINCT FROM b",
            "a = b OR ((attribute_not_exists(a) OR a IS NULL) AND (attribute_not_exists(b) OR b IS NULL))",
        ),
        ("LOWER(a) IS NOT DISTINCT FROM NULL", "LOWER(a) IS NULL"),
        ("flag", "flag = TRUE"),
        ("NOT m.flag", "NOT (m.flag = TRUE)"),
        (":p IS NULL", ":p IS NULL"),
    ],
)  # fmt: skip
def test_distinct_from_is_written_in_dynamodbs_conditions(condition: str, text: str) -> None:
    assert sql_text(where(condition)) == text


def test_distinct_from_a_parameter_is_decided_by_its_value() -> None:
    pending = where("a IS DISTINCT FROM :p")
    assert isinstance(pending, ast.IsDistinct)
    assert sql_text(bind(pending, {"p": None})) == "NOT (attribute_not_exists(a) OR a IS NULL)"
    assert sql_text(bind(pending, {"p": Decimal(2)})) == "NOT (a = 2)"


@pytest.mark.parametrize(
    "sql, col",
    [
        ("SELECT * FROM t WHERE x = 1 AND ts > INTERVAL '1' DAY", 38),
        ("SELECT * FROM t WHERE x = 1 AND ts > CAST('1' AS DATE)", 38),
        ("SELECT date FROM t WHERE x = 'DATE ''x''' AND ts > DATE '2024-01-01'", 52),
        ("SELECT * FROM t WHERE x = 1 AND ts >  interval\n  '1' DAY", 39),
        ("SELECT * FROM t WHERE " + "x = 1 OR " * 999 + "ts > INTERVAL '1' DAY", 23 + 9 * 999 + 5),
    ],
)
def test_expressions_without_names_point_at_their_own_text(sql: str, col: int) -> None:
    """Issue 11: not at line 1 column 1, nor at an earlier literal with the same text."""
    err = error(sql)
    assert (err.line, err.col) == (1, col)


@pytest.mark.parametrize(
    "sql, word, col",
    [
        ("EXPLAIN BEGIN", "BEGIN", 9),
        ("explain  commit", "COMMIT", 10),
        ("EXPLAIN ROLLBACK", "ROLLBACK", 9),
        ("EXPLAIN ANALYZE START TRANSACTION", "START TRANSACTION", 17),
        ("EXPLAIN UNDO 'j.jsonl'", "UNDO", 9),
    ],
)
def test_explain_of_a_transaction_word_or_undo_is_one_clear_error(
    sql: str, word: str, col: int
) -> None:
    err = error(sql)
    assert err.message.startswith(f"EXPLAIN cannot explain {word}: ")
    assert "\n" not in err.message and (err.line, err.col) == (1, col)
