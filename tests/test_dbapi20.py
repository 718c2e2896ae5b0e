"""PEP 249's compliance suite, ``dbapi20.py`` (the dbapi-compliance package), run against
``dynosql`` as the driver module: on ``dynosql.connect(local=True)`` (moto, in-process, a
new server per connection) and on DynamoDB Local (slow).

Only the DDL strings are adapted, to give each table a key (DynamoDB has no table without
one; types are declared for key attributes only): ``booze`` is keyed on ``name``,
``barflys`` on ``(name, drink)``, so the suite's ``INSERT INTO t VALUES (…)`` without column
names fills the key attributes in key order. Two of its tests are placeholders that a driver
must write (``test_nextset``, ``test_setoutputsize``); they are written here. One of its
tests cannot pass on DynamoDB and is expected to fail, for the reason given at it."""

from __future__ import annotations

import types
import warnings
from collections.abc import Iterator
from typing import Any

import dbapi20
import pytest
from backends import Backend, unique_name

import dynosql

pytestmark = pytest.mark.filterwarnings("ignore::dynosql.dbapi.Warning")  # the Scan warnings


class _Adapted(dbapi20.DatabaseAPI20Test):
    __test__ = False  # the subclasses below run it
    driver = dynosql
    # dbapi20's tearDown drops both tables after each test: DROP TABLE needs a yes
    connect_kw_args: dict[str, Any] = {"local": True, "confirm": True, "journal_dir": "off"}
    table_prefix = "dbapi20test_"
    ddl1 = f"CREATE TABLE {table_prefix}booze (name S, PRIMARY KEY (name))"
    ddl2 = f"CREATE TABLE {table_prefix}barflys (name S, drink S, PRIMARY KEY (name, drink))"
    xddl1 = f"DROP TABLE {table_prefix}booze"
    xddl2 = f"DROP TABLE {table_prefix}barflys"

    def test_nextset(self) -> None:
        """dbapi20 leaves it to the driver: dynosql has no nextset (PEP 249's optional
        method, left out as the PEP prefers when the database has no such thing)."""
        con = self._connect()
        try:
            self.assertFalse(hasattr(con.cursor(), "nextset"))
            self.assertFalse(hasattr(con.cursor(), "callproc"))
        finally:
            con.close()

    def test_setoutputsize(self) -> None:
        """dbapi20 leaves it to the driver: values come back whole whatever the size set."""
        con = self._connect()
        try:
            cur = con.cursor()
            self.executeDDL1(cur)
            cur.execute(f"INSERT INTO {self.table_prefix}booze VALUES ('Victoria Bitter')")
            cur.setoutputsize(3)
            cur.setoutputsize(3, 0)
            cur.execute(f"SELECT name FROM {self.table_prefix}booze")
            self.assertEqual(cur.fetchall(), [("Victoria Bitter",)])
        finally:
            con.close()

    @pytest.mark.xfail(raises=dynosql.ProgrammingError, strict=True)
    def test_None(self) -> None:
        """``INSERT INTO barflys VALUES ('a', NULL)``: positional values fill key attributes
        only, and a key attribute cannot hold NULL in DynamoDB, so dynosql refuses the row
        (ProgrammingError: "drink is a key of barflys of type S: it takes a string, not
        NULL"). A table whose second column is not a key cannot be written without column
        names: nothing fixes that column's position."""
        super().test_None()


@pytest.mark.slow  # the standard compliance suite, whole (7 s of CPU): CI decides with it
class TestLocal(_Adapted):
    """``dynosql.connect(local=True)``: a new embedded moto server for each connection."""

    __test__ = True


class TestLocalQmark(TestLocal):
    """The same, with dbapi20 sending PartiQL's ``?`` parameters and sequences of values:
    dynosql's paramstyle is named, and a sequence binds ``?`` (qmark) beside it."""

    driver = types.SimpleNamespace(**{name: getattr(dynosql, name) for name in dynosql.DBAPI_NAMES})
    driver.paramstyle = "qmark"


@pytest.mark.slow  # about 60 CreateTable/DeleteTable round trips on the JVM
class TestDynamoDBLocal(_Adapted):
    """DynamoDB Local, shared with the other tests: tables of names of their own."""

    __test__ = True

    @pytest.fixture(autouse=True)
    def _server(self, ddblocal_backend: Backend, aws_env: None) -> Iterator[None]:
        prefix = unique_name("dbapi20") + "_"
        self.table_prefix = prefix
        self.ddl1 = f"CREATE TABLE {prefix}booze (name S, PRIMARY KEY (name))"
        self.ddl2 = f"CREATE TABLE {prefix}barflys (name S, drink S, PRIMARY KEY (name, drink))"
        self.xddl1 = f"DROP TABLE {prefix}booze"
        self.xddl2 = f"DROP TABLE {prefix}barflys"
        self.connect_kw_args = {
            "endpoint_url": ddblocal_backend.endpoint_url,
            "confirm": True,
            "journal_dir": "off",
        }
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", dynosql.Warning)
            yield


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch) -> None:
    from cli_runner import AWS_VARIABLES

    for name, value in AWS_VARIABLES.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
