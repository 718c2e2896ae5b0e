"""The DB-API 2.0 driver (PEP 249), `dynosql.connect`, on the embedded moto backend.

Each test opens a connection to a shared server (`moto_examples_backend` for reads of the
example tables, `moto_backend` with a table of its own for writes), so nothing here starts a
server of its own."""

from __future__ import annotations

import decimal
import subprocess
import sys
import warnings
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from backends import Backend
from cli_runner import AWS_VARIABLES

import dynosql
from dynosql import dbapi
from dynosql.session import Session


@pytest.fixture(autouse=True)
def aws_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in AWS_VARIABLES.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)


def connect(backend: Backend, tmp_path: Path, **kwargs: Any) -> dbapi.Connection:
    kwargs.setdefault("journal_dir", str(tmp_path / "journal"))
    return dynosql.connect(endpoint_url=backend.endpoint_url, **kwargs)


@pytest.fixture
def examples(moto_examples_backend: Backend, tmp_path: Path) -> Any:
    conn = connect(moto_examples_backend, tmp_path)
    yield conn
    conn.close()


@pytest.fixture
def table(moto_backend: Backend, table_name: str) -> str:
    moto_backend.create_keyed_table(table_name, pk=("pk", "S"), sk=("sk", "N"))
    return table_name


def test_dynosql_itself_is_the_pep_249_module_without_importing_the_driver():
    """Generic tools take the module users import: every PEP 249 name is on ``dynosql`` and
    is the driver's own object, and ``import dynosql`` still loads none of the driver (a
    fresh interpreter is the only honest sys.modules)."""
    pep_249 = {
        *("apilevel", "threadsafety", "paramstyle", "connect", "Warning", "Error"),
        *("InterfaceError", "DatabaseError", "DataError", "OperationalError"),
        *("IntegrityError", "InternalError", "ProgrammingError", "NotSupportedError"),
        *("Date", "Time", "Timestamp", "DateFromTicks", "TimeFromTicks"),
        *("TimestampFromTicks", "Binary", "STRING", "BINARY", "NUMBER", "DATETIME", "ROWID"),
    }
    assert set(dynosql.DBAPI_NAMES) == pep_249 and pep_249 <= set(dbapi.__all__)
    for name in pep_249:
        assert getattr(dynosql, name) is getattr(dbapi, name), name
    assert pep_249 <= set(dir(dynosql)) and pep_249 <= set(dynosql.__all__)
    with pytest.raises(AttributeError, match="no attribute 'cursor'"):
        dynosql.cursor  # noqa: B018
    code = "import sys, dynosql; print(sorted(m for m in sys.modules if m.startswith('dynosql')))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "['dynosql']"


def test_connection_attributes_are_the_exceptions_and_close_is_not_repeated(
    moto_backend: Backend, tmp_path: Path
):
    examples = connect(moto_backend, tmp_path)
    for name in ("Warning", "Error", "InterfaceError", "DatabaseError", "DataError"):
        assert getattr(examples, name) is getattr(dynosql, name)
    for name in ("OperationalError", "IntegrityError", "InternalError", "ProgrammingError"):
        assert getattr(examples, name) is getattr(dynosql, name)
    assert examples.NotSupportedError is dynosql.NotSupportedError
    examples.close()
    with pytest.raises(dbapi.InterfaceError, match="closed"):
        examples.close()  # PEP 249: a closed connection is unusable, closing included


def test_fetch_after_a_statement_without_a_result_set_raises(
    moto_backend: Backend, table: str, tmp_path: Path
):
    with connect(moto_backend, tmp_path) as conn:
        cur = conn.cursor()
        with pytest.raises(dbapi.InterfaceError, match="before execute"):
            cur.fetchone()
        cur.execute(f"INSERT INTO {table} (pk, sk) VALUES ('f', 1)")
        for fetch in (cur.fetchone, cur.fetchall, cur.fetchmany):
            with pytest.raises(dbapi.ProgrammingError, match="no result set"):
                fetch()
        cur.executemany(f"INSERT INTO {table} (pk, sk) VALUES ('f', :sk)", [{"sk": 2}])
        with pytest.raises(dbapi.ProgrammingError, match="no result set"):
            cur.fetchall()
        cur.execute(f"SELECT sk FROM {table} WHERE pk = 'f' AND sk = 1")
        assert cur.fetchall() == [(1,)]
        assert not hasattr(cur, "callproc") and not hasattr(cur, "nextset")


def test_description_of_an_empty_result_gives_the_declared_key_types(
    moto_backend: Backend, table: str, tmp_path: Path
):
    """No row shows a type: a key attribute (of the table or an index) has its declared
    one, anything else None; COUNT is an int."""
    with connect(moto_backend, tmp_path) as conn:
        cur = conn.cursor()
        cur.execute(f"SELECT sk, pk AS p, other FROM {table} WHERE pk = 'nobody'")
        assert [d[:2] for d in cur.description] == [("sk", "N"), ("p", "S"), ("other", None)]
        assert cur.fetchall() == []
        cur.execute(f"SELECT * FROM {table} WHERE pk = 'nobody'")
        assert [d[:2] for d in cur.description] == [("pk", dbapi.STRING), ("sk", dbapi.NUMBER)]
        cur.execute(f"SELECT COUNT(*) AS n, COUNT(sk) FROM {table} WHERE pk = 'nobody'")
        row = cur.fetchone()
        assert row == (0, 0) and all(type(v) is int for v in row)


def test_module_globals_and_the_exception_hierarchy():
    assert (dbapi.apilevel, dbapi.paramstyle, dbapi.threadsafety) == ("2.0", "named", 1)
    assert dynosql.connect is dbapi.connect
    assert issubclass(dbapi.Warning, Exception) and issubclass(dbapi.Warning, Warning)
    for cls in (dbapi.InterfaceError, dbapi.DatabaseError):
        assert issubclass(cls, dbapi.Error)
    for cls in (
        dbapi.DataError,
        dbapi.OperationalError,
        dbapi.IntegrityError,
        dbapi.InternalError,
        dbapi.ProgrammingError,
        dbapi.NotSupportedError,
    ):
        assert issubclass(cls, dbapi.DatabaseError)
    assert issubclass(dbapi.RefusedError, dbapi.OperationalError)
    assert dbapi.STRING == "S" and dbapi.NUMBER == "N" and dbapi.BINARY == "B"
    assert dbapi.STRING != "N" and dbapi.ROWID != "S" and dbapi.SET == "SS"


@pytest.mark.parametrize("name", ["moto", "dynalite"])
def test_named_parameters_description_and_fetches_equal_the_sessions_rows(
    name: str, request: pytest.FixtureRequest, tmp_path: Path
):
    backend: Backend = request.getfixturevalue(f"{name}_examples_backend")
    examples = connect(backend, tmp_path)
    sql = "SELECT SK, name, size FROM drive WHERE PK = :pk AND begins_with(SK, :prefix)"
    params = {"pk": "DRIVE#alice", "prefix": "root/photos/"}
    cur = examples.cursor()
    cur.execute(sql, params)
    assert [d[0] for d in cur.description] == ["SK", "name", "size"]
    assert [d[1] for d in cur.description] == [dbapi.STRING, dbapi.STRING, dbapi.NUMBER]
    assert cur.rowcount == -1  # not known until the rows are all fetched
    first = cur.fetchone()
    cur.arraysize = 3
    some = cur.fetchmany()
    rest = cur.fetchall()
    assert len(some) == 3
    assert cur.fetchone() is None
    rows = [first, *some, *rest]
    assert cur.rowcount == len(rows)
    with Session(backend.client()) as session:
        expected = session.execute(sql, params).all()
    assert rows == [(r["SK"], r["name"], r.get("size")) for r in expected]
    assert any(isinstance(r[2], Decimal) for r in rows)  # numbers stay exact
    assert cur.consumed is not None and cur.consumed.rcu > 0 and cur.consumed.wcu == 0
    examples.close()


def test_select_star_describes_keys_then_the_attributes_read_ahead(
    moto_backend: Backend, table: str, tmp_path: Path
):
    moto_backend.put_items(
        table,
        [
            {"pk": "a", "sk": Decimal(1), "x": "one"},
            {"pk": "a", "sk": Decimal(2), "y": Decimal(2)},
            {"pk": "a", "sk": Decimal(3), "z": True},
        ],
    )
    with connect(moto_backend, tmp_path) as conn:
        cur = conn.cursor()
        cur.lookahead = 2
        cur.execute(f"SELECT * FROM {table} WHERE pk = 'a'")
        assert [(d[0], d[1]) for d in cur.description] == [
            ("pk", "S"),
            ("sk", "N"),
            ("x", "S"),
            ("y", "N"),
        ]
        assert cur.fetchmany(2) == [("a", 1, "one", None), ("a", 2, None, 2)]
        with pytest.warns(dbapi.Warning, match="attribute z, which the first 2 rows lacked"):
            assert cur.fetchone() == ("a", 3, None, None)


def test_fetches_stream_the_pages(moto_backend: Backend, table: str, tmp_path: Path):
    """Two 1 MB pages: the first fetch has sent one Scan request, the last both; closing
    the cursor after the first row sends no more."""
    pad = "x" * 4000
    moto_backend.put_items(table, [{"pk": "p", "sk": Decimal(i), "pad": pad} for i in range(300)])
    with connect(moto_backend, tmp_path, segments=1) as conn:
        cur = conn.cursor()
        with pytest.warns(dbapi.Warning, match=f"Scan of {table}"):
            cur.execute(f"SELECT sk FROM {table}")
        assert cur.fetchone() is not None
        assert cur.result is not None and cur.result.stats.requests == 1
        assert len(cur.fetchall()) == 299 and cur.rowcount == 300
        assert cur.result.stats.requests == 2
        with pytest.warns(dbapi.Warning):
            cur.execute(f"SELECT sk FROM {table}")
        result = cur.result
        cur.fetchone()
        cur.close()
        assert result is not None and result.stats.requests == 1
        with pytest.raises(dbapi.InterfaceError, match="closed"):
            cur.fetchone()


def test_executemany_batches_insert_rows(
    moto_backend: Backend, table: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    from dynosql.dbapi import connection

    monkeypatch.setattr(connection, "BATCH_ROWS", 10)
    with connect(moto_backend, tmp_path) as conn:
        cur = conn.cursor()
        rows = [{"pk": "b", "sk": i, "n": Decimal(i) / 4} for i in range(25)]
        cur.executemany(f"INSERT INTO {table} (pk, sk, n) VALUES (:pk, :sk, :n)", rows)
        assert cur.rowcount == 25
        assert cur.consumed is not None and cur.consumed.wcu == 25
        # three statements of 10, 10 and 5 rows: one undo journal each
        assert len(list((tmp_path / "journal").glob("*.jsonl"))) == 3
        cur.execute(f"SELECT COUNT(*) AS n, SUM(n) AS total FROM {table} WHERE pk = 'b'")
        assert cur.fetchone() == (25, Decimal(75))
        # anything else runs once per parameter set; rowcount sums the items written
        update = f"UPDATE {table} SET n = n + 1 WHERE pk = 'b' AND sk = :sk"
        cur.executemany(update, [{"sk": 1}, {"sk": 2}, {"sk": 99}])
        assert cur.rowcount == 2
        assert len(list((tmp_path / "journal").glob("*.jsonl"))) == 5


def test_write_errors_map_to_pep_249(moto_backend: Backend, table: str, tmp_path: Path):
    insert = f"INSERT INTO {table} (pk, sk) VALUES (:pk, :sk)"
    with connect(moto_backend, tmp_path) as conn:
        cur = conn.cursor()
        cur.execute(insert, {"pk": "c", "sk": 1})
        assert cur.rowcount == 1 and cur.description is None
        with pytest.raises(dbapi.IntegrityError, match="already exists"):
            cur.execute(insert, {"pk": "c", "sk": 1})
        with pytest.raises(dbapi.ProgrammingError) as caught:
            cur.execute(f"SELECT pk\nFORM {table}")
        assert (caught.value.line, caught.value.col) == (2, 1)
        assert "did you mean FROM" in str(caught.value)
        with pytest.raises(dbapi.ProgrammingError, match="no value for :sk"):
            cur.execute(insert, {"pk": "c"})
        with pytest.raises(dbapi.ProgrammingError, match="no table named"):
            cur.execute("SELECT * FROM no_such_table WHERE pk = 'x'")
        with pytest.raises(dbapi.ProgrammingError, match="no value for :pk"):
            cur.execute(insert, ("c", 2))  # values by position are for ? parameters
        with pytest.raises(dbapi.NotSupportedError, match="a mapping for :name or a sequence"):
            cur.execute(insert, "c2")
        with pytest.raises(dbapi.DataError, match="38 significant digits"):
            cur.execute(insert, {"pk": "c", "sk": Decimal("1" * 39)})
        with pytest.raises(dbapi.DataError):
            cur.execute(insert, {"pk": "c", "sk": float("nan")})
        with pytest.raises(dbapi.ProgrammingError, match="one statement"):
            cur.execute("SELECT a FROM x; SELECT b FROM y")


def test_qmark_parameters_bind_by_position(moto_backend: Backend, table: str, tmp_path: Path):
    """A sequence binds PartiQL's ``?`` parameters in order (qmark beside named), for
    execute and executemany, and plans from the values as ``:name`` does."""
    with connect(moto_backend, tmp_path) as conn:
        cur = conn.cursor()
        cur.executemany(f"INSERT INTO {table} VALUES (?, ?)", [("q", 1), ("q", 2), ("r", 3)])
        assert cur.rowcount == 3
        cur.execute(f"SELECT sk FROM {table} WHERE pk = ? AND sk BETWEEN ? AND ?", ["q", 2, 9])
        assert cur.fetchall() == [(2,)]
        cur.execute(f"SELECT COUNT(*) FROM {table} WHERE pk LIKE ?", ("q",))
        assert cur.fetchone() == (2,)
        with pytest.raises(dbapi.ProgrammingError, match="no value for the 2nd ?"):
            cur.execute(f"SELECT sk FROM {table} WHERE pk = ? AND sk = ?", ["q"])


def test_parameters_take_python_values(moto_backend: Backend, table: str, tmp_path: Path):
    import datetime

    values = {
        "f": 0.1,
        "s": {"b", "a"},
        "ns": frozenset({1, 2}),
        "raw": bytearray(b"\x00\xff"),
        "doc": {"k": [1, "two", None, True]},
        "day": datetime.date(2026, 12, 1),
    }
    with connect(moto_backend, tmp_path) as conn:
        cur = conn.cursor()
        cur.execute(
            f"INSERT INTO {table} (pk, sk, f, s, ns, raw, doc, day) "
            "VALUES ('d', 1, :f, :s, :ns, :raw, :doc, :day)",
            values,
        )
        cur.execute(f"SELECT f, s, ns, raw, doc, day FROM {table} WHERE pk = 'd' AND sk = 1")
        assert [d[1] for d in cur.description] == ["N", "SS", "NS", "B", "M", "S"]
        assert cur.fetchone() == (
            Decimal("0.1"),  # the float's shortest repr, not 0.1000000000000000055…
            {"a", "b"},
            {1, 2},
            b"\x00\xff",
            {"k": [1, "two", None, True]},
            "2026-12-01",
        )
        with pytest.raises(dbapi.DataError, match="no empty set"):
            cur.execute(f"INSERT INTO {table} (pk, sk, s) VALUES ('d', 2, :s)", {"s": set()})
        with pytest.raises(dbapi.ProgrammingError, match="cannot bind a object"):
            cur.execute(f"SELECT * FROM {table} WHERE pk = :p", {"p": object()})


def test_guards_without_a_terminal(moto_backend: Backend, table: str, tmp_path: Path):
    moto_backend.put_items(table, [{"pk": "e", "sk": Decimal(i)} for i in range(3)])
    delete = f"DELETE FROM {table} WHERE pk = 'e'"
    unbounded = f"DELETE FROM {table}"
    with connect(moto_backend, tmp_path, read_only=True) as conn:
        with pytest.raises(dbapi.RefusedError, match="read_only"):
            conn.cursor().execute(delete)
    with connect(moto_backend, tmp_path) as conn:  # confirm=False: like a script without --yes
        with pytest.raises(dbapi.RefusedError, match=r"confirm=True"):
            conn.cursor().execute(unbounded)
    asked: list[str] = []

    def no(question: str) -> bool:
        asked.append(question)
        return False

    with connect(moto_backend, tmp_path, confirm=no, confirm_over=1) as conn:
        with pytest.raises(dbapi.RefusedError, match="not confirmed"):
            conn.cursor().execute(delete)
    assert len(asked) == 1 and "3" in asked[0]
    with connect(moto_backend, tmp_path, confirm=True, confirm_over=1) as conn:
        cur = conn.cursor()
        cur.execute(delete)
        assert cur.rowcount == 3
    with pytest.raises(dbapi.InterfaceError, match="unknown setting"):
        connect(moto_backend, tmp_path, no_such_setting=1)


def test_a_limit_given_to_connect_cannot_be_loosened(
    moto_examples_backend: Backend, tmp_path: Path
):
    with connect(moto_examples_backend, tmp_path, max_rcu=5, fail_on_scan=True) as conn:
        cur = conn.cursor()
        with pytest.raises(dbapi.ProgrammingError, match="would loosen"):
            cur.execute("SET max_rcu = 50")
        with pytest.raises(dbapi.RefusedError, match="fail-on-scan"):
            cur.execute("SELECT * FROM drive WHERE name = 'x'")


def test_transactions_commit_and_rollback(moto_backend: Backend, table: str, tmp_path: Path):
    insert = f"INSERT INTO {table} (pk, sk) VALUES ('t', :sk)"
    count = f"SELECT COUNT(*) FROM {table} WHERE pk = 't'"
    with connect(moto_backend, tmp_path) as other:
        seen = other.cursor()
        with connect(moto_backend, tmp_path, transactions=True) as conn:
            cur = conn.cursor()
            cur.execute(insert, {"sk": 1})
            cur.execute(insert, {"sk": 2})
            assert conn.session.in_transaction
            assert seen.execute(count).fetchone() == (0,)  # queued, not sent
            conn.commit()
            assert seen.execute(count).fetchone() == (2,)
            cur.execute(insert, {"sk": 3})
            conn.rollback()
            assert not conn.session.in_transaction
            assert seen.execute(count).fetchone() == (2,)
            cur.execute(insert, {"sk": 4})
            cur.execute(insert, {"sk": 1})  # exists: the transaction's condition fails
            with pytest.raises(dbapi.IntegrityError, match="failed its condition"):
                conn.commit()
        assert seen.execute(count).fetchone() == (2,)  # all or nothing
        # without transactions=True, commit and rollback do nothing and writes apply at once
        plain = connect(moto_backend, tmp_path)
        plain.cursor().execute(insert, {"sk": 5})
        plain.rollback()
        plain.close()
        assert seen.execute(count).fetchone() == (3,)
        with pytest.raises(dbapi.InterfaceError, match="closed"):
            plain.cursor()


def test_warnings_point_at_the_caller(examples: dbapi.Connection):
    cur = examples.cursor()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cur.execute("SELECT name FROM drive LIMIT 1")
        assert len(cur.fetchall()) == 1
    scan = [w for w in caught if "Scan of drive" in str(w.message)]
    assert scan and scan[0].category is dbapi.Warning
    assert scan[0].filename == __file__


def test_service_failures_are_operational_errors():
    """The error a throttled request leaves after its retries, chained as dynosql chains it."""
    from botocore.exceptions import ClientError

    from dynosql.errors import translate_error

    def chained(code: str, status: int) -> dbapi.Error:
        cause = ClientError(
            {
                "Error": {"Code": code, "Message": "m"},
                "ResponseMetadata": {"HTTPStatusCode": status},
            },
            "Scan",
        )
        try:
            raise translate_error(cause) from cause
        except dynosql.errors.DynosqlError as err:
            return dbapi.translate(err)

    assert type(chained("ProvisionedThroughputExceededException", 400)) is dbapi.OperationalError
    assert type(chained("InternalServerError", 500)) is dbapi.OperationalError
    assert type(chained("ResourceNotFoundException", 400)) is dbapi.ProgrammingError
    assert type(chained("UnknownOperationException", 400)) is dbapi.NotSupportedError


def test_an_unreachable_endpoint_is_an_operational_error(tmp_path: Path):
    from backends import free_port

    conn = dynosql.connect(
        endpoint_url=f"http://127.0.0.1:{free_port()}", deadline=1, connect_timeout=0.2
    )
    with pytest.raises(dbapi.OperationalError, match="cannot reach DynamoDB"):
        conn.cursor().execute("SELECT * FROM drive WHERE PK = 'x'")
    conn.close()


def test_decimal_context_is_not_touched():
    """Binding a number never changes the caller's decimal context."""
    before = decimal.getcontext().prec
    dbapi.types.value_of(Decimal("1.5"), "x")
    assert decimal.getcontext().prec == before


def test_connect_arguments_that_cannot_work_are_interface_errors(tmp_path: Path):
    with pytest.raises(dbapi.InterfaceError, match="is not a region name"):
        dynosql.connect(region="not a region!")
    with pytest.raises(dbapi.InterfaceError, match="exclude each other"):
        dynosql.connect(local=True, endpoint_url="http://127.0.0.1:1")
    with pytest.raises(dbapi.InterfaceError, match="max_rcu"):
        dynosql.connect(endpoint_url="http://127.0.0.1:1", max_rcu="lots")
