"""Entity definitions: CREATE ENTITY read and checked against its table, templates composed and
read back, ambiguity said at CREATE, and the statements about entities (SHOW ENTITIES, SHOW
CREATE ENTITY, DESCRIBE, DROP ENTITY), schema files (--schema, the config's schema) and the
REPL's offer to keep a CREATE ENTITY in the session's schema file."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from backends import Backend
from cli_runner import cli_env, run_cli
from hypothesis import given
from hypothesis import strategies as st
from repl_driver import drive
from test_entity_fixtures import TABLES

from dynosql.entities.check import check
from dynosql.entity_model import Template, TemplateError, collision, common_value
from dynosql.errors import DynosqlError, PlanError, SqlError
from dynosql.session import Session
from dynosql.settings import Settings
from dynosql.sql import ast, parse

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "examples" / "entities.sql"
SHIPMENT = """CREATE ENTITY shipment ON shop (
  KEY (pk = 'ORDER#' || orderId, sk = 'SHIP#' || status || '#' || shippedAt),
  INDEX gsi2 (gsi2pk = 'CARRIER#' || carrier, gsi2sk = shippedAt) WHERE carrier <> 'none',
  kind = 'shipment'
)"""


def create(sql: str) -> ast.CreateEntity:
    statement = parse(sql)
    assert isinstance(statement, ast.CreateEntity)
    return statement


def template(sql: str) -> Template:
    return create(f"CREATE ENTITY e ON t (KEY ({sql}))").entity.key.pk


# --- reading CREATE ENTITY --------------------------------------------------------------------


def test_create_entity_reads_templates_indexes_conditions_and_constants() -> None:
    entity = create(SHIPMENT).entity
    assert (entity.name, entity.table) == ("shipment", "shop")
    assert entity.key.sk is not None and entity.key.sk.columns == ("status", "shippedAt")
    assert entity.columns == ("orderId", "status", "shippedAt", "carrier")
    assert entity.constants == (("kind", "shipment"),)
    (index,) = entity.indexes
    assert (index.index, index.where_text) == ("gsi2", "carrier <> 'none'")
    assert isinstance(index.where, ast.Compare)
    # SHOW CREATE ENTITY's text reads back as the same definition
    assert create(entity.text()).entity == entity
    assert create(
        "CREATE ENTITY e ON t (KEY (pk = 'A' || 'B' || x), n = -1.50, b = TRUE)"
    ).entity.constants == (
        ("n", Decimal("-1.5")),
        ("b", True),
    )


@pytest.mark.parametrize(
    "sql, message",
    [
        (
            "CREATE ENTITY e ON t (KEY (pk = a || b))",
            "column 38: a and b are next to each other in pk: separate them with a literal delimiter",
        ),
        ("CREATE ENTITY e ON t (KEY (pk = a || '#' || a))", "column 45: a appears twice in pk"),
        (
            "CREATE ENTITY e ON t (INDEX g (x = y))",
            "column 20: CREATE ENTITY needs KEY (pk = template",
        ),
        ("CREATE ENTITY e ON t (KEY (pk = a), KEY (pk = b))", "column 37: KEY given twice"),
        ("CREATE ENTITY e ON t (KEY (pk = a), pk = 1)", "column 37: pk is given twice (KEY too)"),
        (
            "CREATE ENTITY e ON t (KEY (pk = a), INDEX g (pk = 'X' || a))",
            "pk is composed twice (KEY and INDEX g) by different templates",
        ),
        (
            "CREATE ENTITY e ON t (KEY (pk = a), INDEX g (x = y) WHERE )",
            "column 59: expected a condition after WHERE",
        ),
        (
            "CREATE ENTITY e ON t (KEY (pk = a, sk = b, c = d))",
            "expected ')': a key has a partition key template and at most a sort key one",
        ),
        (
            "CREATE ENTITY e ON t (KEY (pk = a), k = x)",
            "expected a constant: a 'string', a number, TRUE or FALSE",
        ),
    ],
)
def test_create_entity_refusals_name_line_and_column(sql: str, message: str) -> None:
    with pytest.raises(SqlError) as err:
        parse(sql)
    assert message in str(err.value)


def test_an_index_may_repeat_a_key_template_as_it_is() -> None:
    """An inverted index (sk, pk) composes the same attributes with the same templates."""
    entity = create(
        "CREATE ENTITY e ON t (KEY (pk = 'O#' || o, sk = 'I#' || i), INDEX inv (sk = 'I#' || i, pk = 'O#' || o))"
    ).entity
    assert entity.indexes[0].pk == entity.key.sk


# --- templates: compose, read back, membership ------------------------------------------------

SHIP = template("pk = 'SHIP#' || status || '#' || shippedAt")


def test_compose_and_decode() -> None:
    row = {"status": "SENT", "shippedAt": "2026-04-27T10:00:00Z"}
    assert SHIP.compose(row) == "SHIP#SENT#2026-04-27T10:00:00Z"
    assert SHIP.decode("SHIP#SENT#2026-04-27T10:00:00Z") == row
    # the last column takes the rest, its delimiter and all
    assert SHIP.decode("SHIP#SENT#a#b") == {"status": "SENT", "shippedAt": "a#b"}
    for other in ("SHIP#SENT", "SHIPX#a#b", "INVOICE#1", Decimal(5)):
        assert SHIP.decode(other) is None
    assert SHIP.compose({"status": "SENT"}) is None or True  # a missing column: MISSING
    from dynosql.values import MISSING

    assert SHIP.compose({"status": "SENT"}) is MISSING
    with pytest.raises(TemplateError, match="holds '#', the delimiter after status in pk"):
        SHIP.compose({"status": "A#B", "shippedAt": "x"})
    with pytest.raises(
        TemplateError, match="status composes pk, a string: it takes a string, not N"
    ):
        SHIP.compose({"status": Decimal(1), "shippedAt": "x"})
    trailing = template("pk = 'A#' || x || '#END'")
    assert trailing.decode("A#1#END") == {"x": "1"}
    assert trailing.decode("A#END") is None
    assert trailing.like_pattern() == "A#%#END"
    # a closing literal is read from the end: the column before it may hold it
    assert trailing.decode(trailing.compose({"x": "1#END"})) == {"x": "1#END"}
    assert trailing.delimiter_after("x") is None and SHIP.delimiter_after("status") == "#"
    assert template("pk = 'A_' || x").like_pattern() is None  # LIKE has no escape


@given(
    st.text(st.characters(blacklist_characters="#", blacklist_categories=("Cs",)), max_size=6),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=6),
)
def test_every_composed_value_reads_back(status: str, rest: str) -> None:
    row = {"status": status, "shippedAt": rest}
    assert SHIP.decode(SHIP.compose(row)) == row


@given(st.text(st.characters(blacklist_categories=("Cs",)), max_size=8))
def test_a_folder_path_reads_back_whatever_it_holds(path: str) -> None:
    """drive's folder: ``SK = path || '/'``, and a path holds '/' itself."""
    folder = template("SK = path || '/'")
    assert folder.decode(folder.compose({"path": path})) == {"path": path}


def test_two_templates_that_can_compose_one_value() -> None:
    invoice = template("pk = 'INVOICE#' || id")
    line = template("pk = 'INVOICE#' || id || '#LINE#' || n")
    assert common_value(invoice, line) == "INVOICE#x#LINE#x"
    assert common_value(template("pk = 'USER#' || a"), invoice) is None
    assert (
        common_value(template("pk = 'A#' || x || '#END'"), template("pk = 'A#' || x || '#EN'"))
        is None
    )
    assert common_value(template("pk = 'A#B'"), template("pk = 'A#' || y")) == "A#B"


def test_collisions_are_told_apart_by_constants() -> None:
    a = create("CREATE ENTITY a ON t (KEY (pk = 'INVOICE#' || id))").entity
    b = create("CREATE ENTITY b ON t (KEY (pk = 'INVOICE#' || id || '#LINE#' || n))").entity
    why = collision(a, b)
    assert why is not None and "a and b can hold the same item (pk = 'INVOICE#x#LINE#x')" in why
    kinded = create(
        "CREATE ENTITY b ON t (KEY (pk = 'INVOICE#' || id || '#LINE#' || n), kind = 'line')"
    ).entity
    assert (
        collision(
            create("CREATE ENTITY a ON t (KEY (pk = 'INVOICE#' || id), kind = 'invoice')").entity,
            kinded,
        )
        is None
    )
    assert collision(a, create("CREATE ENTITY c ON u (KEY (pk = 'INVOICE#' || id))").entity) is None


# --- checked against the table ----------------------------------------------------------------


@pytest.mark.parametrize(
    "sql, message",
    [
        (
            "CREATE ENTITY e ON tenants (KEY (pk = 'T#' || t))",
            "KEY needs a template for sk: the key of tenants is pk and sk",
        ),
        (
            "CREATE ENTITY e ON tenants (KEY (pk = 'T#' || t, gsi1sk = x))",
            "gsi1sk is not a key of tenants: its sort key is sk",
        ),
        (
            "CREATE ENTITY e ON tenants (KEY (sk = x, pk = y))",
            "sk is not a key of tenants: its partition key is pk",
        ),
        (
            "CREATE ENTITY e ON tenants (KEY (pk = a, sk = b), INDEX gsi9 (x = y))",
            "table tenants has no index gsi9 (indexes: gsi1)",
        ),
        (
            "CREATE ENTITY e ON tenants (KEY (pk = a, sk = b), INDEX gsi1 (gsi1pk = 'S#' || s))",
            "INDEX gsi1 needs a template for gsi1sk",
        ),
        (
            "CREATE ENTITY e ON tenants (KEY (pk = 'T#' || sk, sk = 'I#' || i))",
            "column sk has the name of sk, an attribute sk = 'I#' || i composes",
        ),
        (
            "CREATE ENTITY e ON tenants (KEY (pk = a, sk = b), gsi1pk = 'x')",
            "gsi1pk is a key attribute of tenants: compose it with a template",
        ),
        (
            "CREATE ENTITY e ON tenants (KEY (pk = a, sk = b), a = 'x')",
            "a is a column of e: a constant needs a name of its own",
        ),
    ],
)
def test_checks_against_the_table(sql: str, message: str) -> None:
    with pytest.raises(PlanError) as err:
        check(create(sql).entity, TABLES["tenants"])
    assert message in str(err.value)


def test_a_number_key_can_only_be_one_column(moto_backend: Backend) -> None:
    described = {
        "TableName": "n",
        "KeySchema": [
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "ts", "KeyType": "RANGE"},
        ],
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "ts", "AttributeType": "N"},
        ],
    }
    from dynosql.plan.schema import table_info

    table = table_info(described)
    with pytest.raises(PlanError, match="ts is a key of type N: a template composes a string"):
        check(create("CREATE ENTITY e ON n (KEY (pk = 'D#' || d, ts = 'T' || ts2))").entity, table)
    entity, _ = check(create("CREATE ENTITY e ON n (KEY (pk = 'D#' || d, ts = at))").entity, table)
    assert entity.key.sk is not None and entity.key.sk.key_type == "N"
    assert entity.key.sk.compose({"at": Decimal(5)}) == Decimal(5)
    with pytest.raises(TemplateError, match="at is ts \\(N\\): it takes a number, not S"):
        entity.key.sk.compose({"at": "5"})


# --- the statements -------------------------------------------------------------------------------


@pytest.fixture
def examples(moto_examples_backend: Backend) -> Session:
    return Session(moto_examples_backend.client())


def test_create_show_describe_drop(examples: Session) -> None:
    s = examples
    result = s.execute(
        "CREATE ENTITY invoice ON tenants (KEY (pk = 'TENANT#' || tenantId, sk = 'INVOICE#' || invoiceId))"
    )
    assert (
        result.kind == "status"
        and result.title == "CREATE ENTITY invoice on tenants (key columns: tenantId, invoiceId)"
    )
    with pytest.raises(PlanError, match="entity invoice exists: DROP ENTITY invoice first"):
        s.execute("CREATE ENTITY invoice ON tenants (KEY (pk = a, sk = b))")
    with pytest.raises(PlanError, match="drive is a table: an entity needs a name of its own"):
        s.execute("CREATE ENTITY drive ON tenants (KEY (pk = a, sk = b))")
    with pytest.raises(PlanError, match="line 1, column 24: no table named tenant in region"):
        s.execute("CREATE ENTITY other ON tenant (KEY (pk = a, sk = b))")
    # an entity that can read invoices as its own: said, and declared
    anything = s.execute("CREATE ENTITY anything ON tenants (KEY (pk = 'TENANT#' || t, sk = rest))")
    assert anything.warnings == [
        "anything and invoice can hold the same item (pk = 'TENANT#x', sk = 'INVOICE#x'): reads "
        "of either would take the other's items as their own; tell them apart with a constant "
        "(e.g. kind = 'anything' and kind = 'invoice') or distinct key prefixes"
    ]
    assert [r["entity"] for r in s.execute("SHOW ENTITIES").all()] == ["anything", "invoice"]
    text = s.execute("SHOW CREATE ENTITY invoice").all()[0]["statement"]
    assert text == (
        "CREATE ENTITY invoice ON tenants (\n  KEY (pk = 'TENANT#' || tenantId, sk = 'INVOICE#' || invoiceId)\n);"
    )
    for sql in ("DESCRIBE invoice", "DESCRIBE ENTITY invoice", "DESC invoice"):
        described = s.execute(sql)
        assert described.title == "entity invoice on table tenants"
        assert [(r["column"], r["key"], r["attribute"]) for r in described.all()] == [
            ("tenantId", "table (partition)", "pk"),
            ("invoiceId", "table (sort)", "sk"),
        ]
    assert s.execute("DESCRIBE tenants").title.startswith("table tenants: ")
    for sql in ("SHOW HOT KEYS FROM invoice", "DROP TABLE invoice", "SHOW ENTITIES FROM invoice"):
        with pytest.raises(PlanError, match="invoice is an entity \\(of table tenants\\): this"):
            s.execute(sql)
    s.execute("DROP ENTITY anything")
    with pytest.raises(PlanError, match="no entity named anything \\(entities: invoice\\)"):
        s.execute("DROP ENTITY anything")
    assert (
        s.execute("DROP ENTITY IF EXISTS anything").title
        == "DROP ENTITY: no entity named anything, nothing done"
    )
    with pytest.raises(PlanError, match="no entity named invoise; did you mean invoice\\?"):
        s.execute("SHOW CREATE ENTITY invoise")


def test_explain_create_and_drop_entity_say_what_they_would_do(examples: Session) -> None:
    """EXPLAIN of a definition: the entity it would declare (checked against its table and
    the entities declared, with their warnings) or forget, and that no item is written;
    nothing is declared or dropped. EXPLAIN ANALYZE has nothing to measure."""
    s = examples
    s.execute(
        "CREATE ENTITY invoice ON tenants (KEY (pk = 'TENANT#' || tenantId, sk = 'INVOICE#' || invoiceId))"
    )
    explained = s.execute(
        "EXPLAIN CREATE ENTITY anything ON tenants (KEY (pk = 'TENANT#' || t, sk = rest), "
        "INDEX gsi1 (gsi1pk = 'S#' || status, gsi1sk = due) WHERE status <> 'void', kind = 'x')"
    )
    assert explained.kind == "plan"
    assert [r["plan"] for r in explained.all()] == [
        "CREATE ENTITY anything on table tenants: declares it in this session; no request, "
        "no item written",
        "  key: pk = 'TENANT#' || t, sk = rest",
        "  index gsi1: gsi1pk = 'S#' || status, gsi1sk = due, holding the items WHERE status <> 'void'",
        "  constant: kind = 'x'",
        "  membership: an item is one of anything's when pk fits 'TENANT#' || t and sk fits rest "
        "and kind = 'x'",
    ]
    assert explained.footer() == "plan only: no request was sent"
    assert explained.document["requests"] == [] and explained.document["text"].startswith(
        "CREATE ENTITY anything ON tenants (\n  KEY (pk = 'TENANT#' || t, sk = rest),"
    )
    assert [w.split(":")[0] for w in explained.warnings] == [
        "anything and invoice can hold the same item (pk = 'TENANT#x', sk = 'INVOICE#x')"
    ]
    assert s.context.entities.names() == ["invoice"]
    with pytest.raises(PlanError, match="line 1, column 32: no table named tenant in region"):
        s.execute("EXPLAIN CREATE ENTITY other ON tenant (KEY (pk = a, sk = b))")
    dropped = s.execute("EXPLAIN DROP ENTITY invoice")
    assert [r["plan"] for r in dropped.all()] == [
        "DROP ENTITY invoice on table tenants: forgets it in this session; no request, no item "
        "touched (FROM tenants still reads them)",
        "  key: pk = 'TENANT#' || tenantId, sk = 'INVOICE#' || invoiceId",
        "  membership: an item is one of invoice's when pk fits 'TENANT#' || tenantId and sk fits "
        "'INVOICE#' || invoiceId",
    ]
    assert s.context.entities.names() == ["invoice"]
    assert [r["plan"] for r in s.execute("EXPLAIN DROP ENTITY IF EXISTS nothing").all()] == [
        "DROP ENTITY: no entity named nothing, nothing to do"
    ]
    with pytest.raises(PlanError, match="no entity named invoise; did you mean invoice\\?"):
        s.execute("EXPLAIN DROP ENTITY invoise")
    with pytest.raises(SqlError) as err:
        parse("EXPLAIN ANALYZE DROP ENTITY invoice")
    assert str(err.value) == (
        "line 1, column 9: EXPLAIN ANALYZE takes SELECT, INSERT, UPSERT, REPLACE, UPDATE or "
        "DELETE: DROP ENTITY sends no request (EXPLAIN DROP ENTITY says what it does)"
    )


def test_entities_are_client_side_read_only_and_transactions_let_them_run(
    moto_examples_backend: Backend,
) -> None:
    s = Session(moto_examples_backend.client(), settings=Settings(read_only=True))
    s.execute(
        "CREATE ENTITY user ON tenants (KEY (pk = 'TENANT#' || tenantId, sk = 'USER#' || email))"
    )
    s.execute("BEGIN")
    s.execute("DROP ENTITY user")
    assert s.execute("SHOW ENTITIES").all() == []
    s.execute("ROLLBACK")


def test_schema_files_declare_at_start(moto_examples_backend: Backend, tmp_path: Path) -> None:
    s = Session(moto_examples_backend.client())
    s.load_schemas([str(SCHEMA)])
    assert s.context.entities.names() == [
        "api_call",
        "audit_event",
        "file",
        "folder",
        "invoice",
        "reading",
        "tenant_event",
        "tenant_user",
    ]
    assert s.context.entities.schema_file == SCHEMA
    bad = tmp_path / "bad.sql"
    bad.write_text(
        "-- entities\nCREATE ENTITY x ON tenants (KEY (pk = a, sk = b));\n\nSELECT * FROM tenants;\n"
    )
    with pytest.raises(DynosqlError) as err:
        Session(moto_examples_backend.client()).load_schemas([str(bad)])
    assert (
        str(err.value)
        == f"{bad}: line 4, column 1: a schema file holds CREATE ENTITY statements only"
    )


def test_schema_option_and_config(moto_examples_backend: Backend, tmp_path: Path) -> None:
    url = moto_examples_backend.endpoint_url
    env = cli_env(tmp_path)
    query = "SELECT invoiceId FROM invoice WHERE tenantId = 'acme' AND invoiceId >= '000079'"
    run = run_cli(
        "--endpoint-url",
        url,
        "--schema",
        "examples/entities.sql",
        "-e",
        query,
        "--format",
        "csv",
        env=env,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["invoiceId", "000079", "000080"]
    config = tmp_path / "config" / "dynosql" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(f'schema = ["{SCHEMA}"]\n')
    run = run_cli("--endpoint-url", url, "-e", "SHOW ENTITIES", "--format", "csv", env=env)
    assert run.returncode == 0, run.stderr
    assert any(line.startswith("invoice,tenants,") for line in run.stdout.splitlines())
    run = run_cli(
        "--endpoint-url",
        url,
        "--schema",
        str(tmp_path / "none.sql"),
        "-e",
        "SHOW ENTITIES",
        env=env,
    )
    assert run.returncode == 1
    assert (
        run.one_error()
        == f"error: cannot read the schema file {tmp_path / 'none.sql'}: No such file or directory"
    )


def test_the_repl_offers_to_keep_a_new_entity(
    moto_examples_backend: Backend, tmp_path: Path
) -> None:
    schema = tmp_path / "entities.sql"
    schema.write_text("-- ours\n")
    s = Session(moto_examples_backend.client())
    s.load_schemas([str(schema)])
    statement = "CREATE ENTITY usr ON tenants (KEY (pk = 'TENANT#' || t, sk = 'USER#' || email));"
    screen, _repl = drive(s, statement + "\ny\n" + statement.replace("usr", "usr2") + "\nn\n")
    assert f"CREATE ENTITY usr on tenants (key columns: t, email); appended to {schema}" in screen
    described, _repl = drive(s, "\\d usr\n")
    assert (
        "entity usr on table tenants" in described
        and "| t        | table (partition) |" in described
    )
    assert schema.read_text() == "-- ours\n\n" + statement + "\n"
    assert s.context.entities.names() == ["usr", "usr2"]


def test_the_repl_offers_to_remove_a_dropped_entity_from_its_schema_file(
    moto_examples_backend: Backend, tmp_path: Path
) -> None:
    """DROP ENTITY of an entity a schema file declares: at the REPL, the offer to remove its
    statement (comments stay); a script, or no, leaves the file as it was."""
    schema = tmp_path / "entities.sql"
    usr = "CREATE ENTITY usr ON tenants (KEY (pk = 'TENANT#' || t, sk = 'USER#' || email))"
    inv = "CREATE ENTITY inv ON tenants (KEY (pk = 'TENANT#' || t, sk = 'INVOICE#' || n))"
    ev = "CREATE ENTITY ev ON tenants (KEY (pk = 'TENANT#' || t, sk = 'EVENT#' || at))"
    schema.write_text(f"-- ours\n{usr};\n\n-- invoices\n{inv};\n\n{ev};\n")
    s = Session(moto_examples_backend.client())
    s.load_schemas([str(schema)])
    assert s.execute("DROP ENTITY ev").title == (
        f"DROP ENTITY ev: the definition is gone (no item was touched); {schema} still "
        "declares it at the next start"
    )
    explained = [r["plan"] for r in s.execute("EXPLAIN DROP ENTITY inv").all()]
    assert explained[-1] == (
        f"then: {schema} still declares it at the next start (the REPL offers to remove it)"
    )
    screen, _repl = drive(s, "DROP ENTITY inv;\ny\nDROP ENTITY usr;\nn\n")
    assert (
        f"DROP ENTITY inv: the definition is gone (no item was touched); removed from {schema}"
        in screen
    )
    assert (
        f"DROP ENTITY usr: the definition is gone (no item was touched); {schema} still" in screen
    )
    assert schema.read_text() == f"-- ours\n{usr};\n\n-- invoices\n\n{ev};\n"
    assert s.context.entities.names() == []
    s.load_schemas([str(schema)])
    assert s.context.entities.names() == ["ev", "usr"]
    _screen, _repl = drive(s, "DROP ENTITY ev;\ny\nDROP ENTITY usr;\ny\n")
    assert schema.read_text() == "-- ours\n\n-- invoices\n"


def test_completion_offers_entities_and_their_columns(moto_examples_backend: Backend) -> None:
    from dynosql.repl.completer import SessionMetadata, suggest

    s = Session(moto_examples_backend.client())
    s.load_schemas([str(SCHEMA)])
    meta = SessionMetadata(s)

    def offered(before: str, after: str = "") -> list[str]:
        return [x.text for x in suggest(before, after, meta)]

    assert {"invoice", "tenant_user", "tenants"} <= set(offered("SELECT * FROM "))
    columns = offered("SELECT ", " FROM invoice WHERE tenantId = 'acme'")
    assert columns[:4] == ["tenantId", "invoiceId", "status", "dueDate"]
    assert not {"pk", "sk", "gsi1pk", "gsi1sk"} & set(columns)  # the composed keys are not columns
    assert offered("SELECT * FROM invoice.") == ["gsi1"]
    assert offered("SELECT * FROM tenant_user.") == []
    assert "ENTITY" in offered("CREATE ") and "ENTITY" in offered("DROP ")
    assert offered("CREATE ENTITY e ") == ["ON"]
    assert "tenants" in offered("CREATE ENTITY e ON ")
    assert "invoice" in offered("DROP ENTITY ")
    assert offered("SHOW CREATE ") == ["TABLE", "ENTITY"]
    assert "ENTITIES" in offered("SHOW ")


def test_help_create_entity_reads_the_grammar() -> None:
    from dynosql.repl.grammar_help import syntax

    lines = syntax("CREATE ENTITY")
    assert lines[0].startswith('create_entity   = "CREATE" "ENTITY" entity "ON" table')
    assert any(line.startswith("show_create_entity") for line in syntax("SHOW CREATE ENTITY"))
    assert any(line.startswith("drop_entity") for line in syntax("DROP ENTITY"))
