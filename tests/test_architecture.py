"""The shape of the house, checked: one direction of flow, thin front doors, one settings table.

- The import graph of dynosql has no cycle, counting every import: inside functions (lazy),
  under ``if TYPE_CHECKING:`` (a type-only circle is still a circle in the design), a
  package's __init__ importing its own modules, and the parent packages an import runs
  (importing ``a.b.c`` runs ``a/__init__`` and ``a/b/__init__`` first).
- Only the AWS edge (dynosql/dynamo) and the embedded server beside it (dynosql/local) import
  boto3, botocore or moto, send AWS requests or sleep; the edge imports nothing above it.
- plan/ and evaluate/ import in one direction only (plan uses evaluate); so do any two
  top-level packages: sql/ and plan/ use the entity model (entity_model.py) below them,
  entities/ uses both.
- The front doors (cli.py, repl/, the DB-API driver dbapi/ and the SQLAlchemy dialect sqla/)
  never touch a client: every DynamoDB call goes through
  `Session`. Statement kinds never import the Session: they receive a `Context`.
- The planner and the evaluator are pure: they import nothing that does I/O.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "dynosql"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


@cache
def _is_module(dotted: str) -> bool:
    base = PACKAGE.parent.joinpath(*dotted.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


@cache
def _tree(path: Path) -> ast.Module:
    """A module's syntax tree, parsed once for the tests that walk it (not changed by them)."""
    return ast.parse(path.read_text())


@cache
def _nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of a module's tree (`ast.walk`'s order), walked once for the tests that
    look at them all: parsing and walking the package's ~190 modules is most of these tests'
    CPU, and each of them walked every tree again (9 s of CPU in all, now about 2 s)."""
    return tuple(ast.walk(_tree(path)))


@cache
def _imports(path: Path) -> frozenset[str]:
    """Every module `path` imports (absolute names), type-only imports included."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in _nodes(path):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                # `from dynosql import values` imports the module values; a name of a
                # package's own __init__ (`from dynosql.repl import ReplOptions`) imports
                # that __init__
                taken = f"{module}.{alias.name}"
                found.add(taken if _is_module(taken) else module)
    return frozenset(found)


def _with_parents(module: str, importer: str) -> set[str]:
    """`module` and the packages Python runs before it (``a`` and ``a.b`` for ``a.b.c``),
    less the importer's own: its parents ran before it did."""
    parts = module.split(".")
    found = {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    return {m for m in found if not importer.startswith(m + ".") and m != importer}


def _graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        graph[name] = {
            parent for m in _imports(path) for parent in _with_parents(m, name) if parent in modules
        }
    return graph


EDGE = (PACKAGE / "dynamo", PACKAGE / "local")
_CLIENT = re.compile(r"client|\bs3\b|\bathena\b|\bdynamodb\b")


def _outside_the_edge() -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py")) if not any(e in p.parents for e in EDGE)]


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """A cycle of `graph` as the path that closes it (``a -> b -> a``), or [] when it has none."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(node: str) -> list[str]:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (found := walk(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state and (found := walk(node)):
            return found
    return []


def test_the_import_graph_has_no_cycle():
    """Lazy imports (inside functions) count: a loop closed by one still runs half-made
    modules, only later. So does a package's __init__ importing its own modules, and the
    package an import runs first: Python runs it before any of its modules (an entities
    module importing ``sql.ast`` ran ``sql/__init__``, whose parse imports the parser, which
    builds entities)."""
    cycle = _cycle(_graph())
    assert not cycle, "import cycle: " + " -> ".join(cycle)


def _top(module: str) -> str:
    """The top-level package or module of dynosql that `module` belongs to (``plan`` for
    ``dynosql.plan.keys``; ``dynosql`` for the package's own __init__)."""
    return module.split(".")[1] if "." in module else module


def test_the_top_level_packages_import_in_one_direction():
    """The layers, not only the modules: no two of dynosql's top-level packages and modules
    (sql, plan, evaluate, entities, values, ...) import each other, directly or round a longer
    loop, counting every import the module graph counts. A module-level graph without a
    cycle still lets plan/ import entities/ while entities/ imports plan/ (each through
    different modules): then neither layer stands below the other, and the entity model was
    in the wrong one."""
    packages: dict[str, set[str]] = {}
    for module, imported in _graph().items():
        packages.setdefault(_top(module), set()).update(_top(m) for m in imported)
    for name, imported in packages.items():
        imported.discard(name)
    assert "sql" in packages["plan"]  # the fold sees the edges it looks for
    cycle = _cycle(packages)
    assert not cycle, "package import cycle: " + " -> ".join(cycle)


def _front_doors() -> list[Path]:
    return [
        PACKAGE / "cli.py",
        *sorted((PACKAGE / "repl").rglob("*.py")),
        *sorted((PACKAGE / "dbapi").rglob("*.py")),
        *sorted((PACKAGE / "sqla").rglob("*.py")),
    ]


def test_only_the_aws_edge_imports_boto3_botocore_or_moto():
    found = {}
    for path in _outside_the_edge():
        outside = {m for m in _imports(path) if m.split(".")[0] in ("boto3", "botocore", "moto")}
        if outside:
            found[str(path.relative_to(PACKAGE))] = sorted(outside)
    assert found == {}


# what the edge may import of dynosql: the plan it runs and the port's own types, values,
# errors, results, settings; never the SQL tree, the evaluator, the journal, a kind or the
# session (the adapter returns items and capacity: what they mean is decided above it)
EDGE_MAY_IMPORT = (
    "dynosql.dynamo",
    "dynosql.plan.model",
    "dynosql.plan.port",
    "dynosql.plan.schema",
    "dynosql.plan.cost",
    "dynosql.plan.ddl",
    "dynosql.values",
    "dynosql.errors",
    "dynosql.result",
    "dynosql.settings",
    "dynosql.user_cache",
    "dynosql.examples",
)


def test_the_edge_loads_only_what_it_needs():
    """What importing the port's adapter really loads (parents' __init__ included): the plan's
    data, never the planner, the evaluator, the SQL tree or the journal."""
    code = (
        "import sys, dynosql.dynamo.backend\n"
        "print('\\n'.join(m for m in sys.modules if m.startswith('dynosql.')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=PACKAGE.parent
    )
    loaded = done.stdout.split()
    assert "dynosql.plan.model" in loaded  # the finder sees what it looks for
    beyond = [
        m
        for m in loaded
        if not any(m == a or m.startswith(a + ".") for a in EDGE_MAY_IMPORT) and m != "dynosql.plan"
    ]
    assert beyond == []


def _dynosql_imports(path: Path) -> set[str]:
    return {m for m in _imports(path) if m == "dynosql" or m.startswith("dynosql.")}


def test_the_edge_depends_on_nothing_above_it():
    found = {
        str(path.relative_to(PACKAGE)): sorted(
            m
            for m in _dynosql_imports(path)
            if not any(m == a or m.startswith(a + ".") for a in EDGE_MAY_IMPORT)
            and m not in ("dynosql", "dynosql.plan")  # `from dynosql import values`
        )
        for path in sorted((PACKAGE / "dynamo").rglob("*.py"))
    }
    assert {k: v for k, v in found.items() if v} == {}


def test_the_embedded_server_stands_beside_the_edge():
    """dynosql/local (moto, metered) uses the edge's pieces, never the other way round, and
    knows nothing of statements, sessions or the evaluator."""
    above = ("dynosql.statements", "dynosql.session", "dynosql.context", "dynosql.evaluate")
    for path in sorted((PACKAGE / "dynamo").rglob("*.py")):
        assert not {m for m in _imports(path) if m.startswith("dynosql.local")}, path
    for path in sorted((PACKAGE / "local").rglob("*.py")):
        assert not {m for m in _imports(path) if m.startswith(above)}, path


def test_plan_and_evaluate_import_in_one_direction():
    """The planner uses the evaluator (constant folding, aggregates, a sample's statistics);
    the evaluator takes what it needs as arguments and imports nothing of plan/."""
    for path in sorted((PACKAGE / "evaluate").rglob("*.py")):
        assert not {m for m in _imports(path) if m.startswith("dynosql.plan")}, path


@cache
def _aws_operations() -> frozenset[str]:
    """The boto3 method of every DynamoDB, S3 and Athena operation (``put_item``,
    ``list_objects_v2``, ``start_query_execution`` …), from botocore's own service models."""
    from botocore import xform_name
    from botocore.loaders import create_loader

    loader = create_loader()
    names = {"get_paginator", "get_waiter"}
    for service in ("dynamodb", "s3", "athena"):
        model = loader.load_service_model(service, "service-2")
        names.update(xform_name(operation) for operation in model["operations"])
    return frozenset(names)


def _requests_and_sleeps(path: Path, name: str | None = None) -> list[str]:
    """Where `path` sends an AWS request or waits on its own: a call of a boto3 operation's
    method (on anything but the module's own `self`), a client's method handed to something
    that calls it (``policy.call(client.describe_table, …)``), a method looked up on a client
    by name (``getattr(client, …)``), ``time.sleep`` (or a `sleep` imported from `time`) and
    ``asyncio.sleep``, and a wait with a timeout (``Event.wait(1)``, ``Condition.wait(timeout=…)``:
    a sleep by another name). A function of one of dynosql's modules that shares an operation's name
    (``guards.scan``) is not a request."""
    nodes = _nodes(path)
    called = {id(node.func) for node in nodes if isinstance(node, ast.Call)}
    operations = _aws_operations()
    sleeps = {
        alias.asname or alias.name
        for node in nodes
        if isinstance(node, ast.ImportFrom) and node.module in ("time", "asyncio")
        for alias in node.names
        if alias.name == "sleep"
    }
    # `guards.scan(…)`, `athena.query(…)`: a function of one of dynosql's own modules
    own = {"self"} | {
        alias.asname or alias.name
        for node in nodes
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dynosql")
        for alias in node.names
        if _is_module(f"{node.module}.{alias.name}")
    }
    label = name or path.relative_to(PACKAGE)
    found = []
    for node in nodes:
        if not isinstance(node, (ast.Attribute, ast.Call)):
            continue
        where = f"{label}:{node.lineno}"
        if (
            isinstance(node, ast.Attribute)
            and node.attr in operations
            and id(node) not in called
            and _CLIENT.search(ast.unparse(node.value))
        ):
            found.append(f"{where} {ast.unparse(node)}")  # a client's method handed on
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute):
            receiver = func.value
            if func.attr in operations and not (
                isinstance(receiver, ast.Name) and receiver.id in own
            ):
                found.append(f"{where} {ast.unparse(func)}")
            elif func.attr == "sleep" and isinstance(receiver, ast.Name):
                if receiver.id in ("time", "asyncio"):
                    found.append(f"{where} {ast.unparse(func)}")
            elif func.attr == "wait" and (
                node.args or any(k.arg == "timeout" for k in node.keywords)
            ):
                found.append(f"{where} {ast.unparse(func)}")  # Event/Condition.wait(timeout)
        elif isinstance(func, ast.Name):
            if func.id in sleeps:
                found.append(f"{where} {func.id}")
            elif (
                func.id == "getattr"
                and len(node.args) > 1
                and _CLIENT.search(ast.unparse(node.args[0]))
            ):
                method = node.args[1]
                if not isinstance(method, ast.Constant) or method.value in operations:
                    found.append(f"{where} {ast.unparse(node)}")
    return sorted(found, key=lambda line: int(line.split(" ")[0].rsplit(":", 1)[1]))


def test_only_the_aws_edge_sends_requests_or_sleeps():
    """Every AWS request (DynamoDB, S3, Athena) and every wait goes through the backend port
    (dynosql/dynamo): its retry policy, deadline, cancellation and capacity ledger. No kind,
    engine, hint or front door holds a client or sleeps on its own."""
    found = [line for path in _outside_the_edge() for line in _requests_and_sleeps(path)]
    assert found == []


def test_only_the_port_settles_the_capacity_ledger():
    """The ledger is charged by the port, once per request, as each answer arrives (estimated
    from the images the kind hands it where the backend reports nothing): no kind charges a
    write's units by hand (there were 7 such calls), nothing outside the edge calls
    ``charge``."""
    assert _method_calls(_outside_the_edge(), {"charge"}) == []


def _method_calls(paths: list[Path], names: set[str]) -> list[str]:
    """Where `paths` call a method named one of `names` (``x.charge(…)``), as path:line."""
    return [
        f"{path.relative_to(PACKAGE)}:{node.lineno}"
        for path in paths
        for node in _nodes(path)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in names
    ]


def test_the_request_finder_finds_requests_and_sleeps(tmp_path: Path) -> None:
    """The finder above is not blind: each kind of call it looks for is found."""
    sample = tmp_path / "probe.py"
    sample.write_text(
        "import time\n"
        "from time import sleep as nap\n"
        "def f(ctx, s3):\n"
        "    ctx.client.put_item(TableName='t', Item={})\n"
        "    s3.list_objects_v2(Bucket='b')\n"
        "    getattr(ctx.client, 'scan')(TableName='t')\n"
        "    policy.call(client.describe_table, TableName='t')\n"
        "    getattr(ctx.client.meta, 'region_name')\n"
        "    time.sleep(1)\n"
        "    nap(1)\n"
        "    threading.Event().wait(0.5)\n"
        "    done.wait(timeout=2)\n"
        "    threading.Event().wait()\n"
        "    self.query()\n"
        "    from dynosql import guards\n"
        "    guards.scan(ctx, None)\n"
    )
    found = _requests_and_sleeps(sample, "probe.py")
    assert [line.split(" ", 1)[1] for line in found] == [
        "ctx.client.put_item",
        "s3.list_objects_v2",
        "getattr(ctx.client, 'scan')",
        "client.describe_table",
        "time.sleep",
        "nap",
        "threading.Event().wait",
        "done.wait",
    ]


def _behind_the_port(package: Path = PACKAGE) -> list[Path]:
    """The Context and what it is handed to: the kinds, engines, hints and entities."""
    return [package / "context.py"] + [
        path
        for folder in ("statements", "engines", "hints", "entities")
        for path in sorted((package / folder).rglob("*.py"))
    ]


def test_nothing_behind_the_port_holds_a_client():
    """Kinds, engines, hints, entities and the Context reach DynamoDB through the port: none
    of them names a ``client`` (the front doors are checked below)."""
    found = [
        f"{path.relative_to(PACKAGE)}:{node.lineno}"
        for path in _behind_the_port()
        for node in _nodes(path)
        if isinstance(node, ast.Attribute) and node.attr == "client"
    ]
    assert found == []


# methods that change what they are called on (the context's members are data: read only)
_CHANGING = {"add", "append", "clear", "discard", "drop", "extend", "insert", "pop", "record"}
_CHANGING |= {"record_every_key", "remove", "set", "setdefault", "update"}
_CONTEXT_NAMES = {"ctx", "context"}


def _is_context(node: ast.AST, own: bool) -> bool:
    """``ctx``, ``context``, ``self.ctx``; inside the Context's own methods (`own`), ``self``."""
    if isinstance(node, ast.Name):
        return node.id in _CONTEXT_NAMES or (own and node.id == "self")
    return isinstance(node, ast.Attribute) and node.attr in _CONTEXT_NAMES


def _context_member(node: ast.AST, own: bool) -> str | None:
    """The Context member `node` reaches (``observed`` in ``ctx.observed.record`` or
    ``ctx.exports[t]``), or None."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Attribute) and _is_context(node.value, own):
            return node.attr
        node = node.value
    return None


def context_writes(package: Path) -> list[str]:
    """Where the kinds (statements, engines, hints, entities) or the Context's own methods
    change a Context member: assign to it or into it, call a changing method on it
    (``ctx.observed.record``), or call it (a callback into the session, ``ctx.wrote``)."""
    from dataclasses import fields

    from dynosql.context import Context

    members = {f.name for f in fields(Context)}
    found = []
    for path in _behind_the_port(package):
        own = path.name == "context.py"
        for node in _nodes(path):
            targets: list[ast.AST] = []
            if isinstance(node, (ast.Assign, ast.Delete)):
                targets = list(node.targets)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            written = [m for t in targets if (m := _context_member(t, own)) is not None]
            if isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Attribute) and func.attr in _CHANGING:
                    member = _context_member(func.value, own)
                    if member is not None and member != "port":  # the port's own state
                        written.append(f"{member}.{func.attr}()")
                if (
                    isinstance(func, ast.Attribute)
                    and _is_context(func.value, own)
                    and func.attr in members
                ):
                    written.append(f"{func.attr}()")
            found += [f"{path.relative_to(package)}:{node.lineno} {w}" for w in written]
    return found


def test_no_kind_writes_to_its_context():
    """A kind gets its session as data, read only: what it changes there (a transaction, a
    setting, entities, an export taken, a partition read whole, a write begun) comes back in
    its `Result.changes` or in the error that stopped it, and the Session applies it. One
    exception: COPY, stopped by Ctrl-C, sets the cancellation token so its batch writer's
    thread stops at its next wait (as `Session.cancel` does for every statement)."""
    found = [w.split(" ", 1)[1] for w in context_writes(PACKAGE)]
    assert found == ["cancelled.set()"], context_writes(PACKAGE)


def test_no_kind_refreshes_the_catalog():
    """The port forgets what it cached of a table when it sends the table a change (so a kind
    cannot forget to); a kind that must see a table as it is now asks for a fresh describe,
    a read (``ctx.table(name, fresh=True)``). So the Context offers no refresh, and no kind,
    engine, hint or entity module calls one, on the port or on anything else."""
    from dynosql.context import Context

    assert not hasattr(Context, "refresh")
    assert _method_calls(_behind_the_port(), {"refresh", "forget", "forget_table"}) == []


def test_every_refusal_and_question_is_the_pipelines():
    """Kinds, engines, hints, entities and the front doors raise no GuardError and ask no
    question of their own: they hand guards.py an Ask (a refusal their reads found, an
    offer). The port's own limits mid-run (--max-rcu, --max-wcu, a change sent before the
    pipeline's go) stand in the edge; the Context only carries the door's answer."""
    allowed = {PACKAGE / "guards.py", PACKAGE / "context.py"}
    found = [
        f"{path.relative_to(PACKAGE)}:{node.lineno}"
        for path in _outside_the_edge()
        if path not in allowed
        for node in _nodes(path)
        if isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Name) and node.func.id == "GuardError")
            or (isinstance(node.func, ast.Attribute) and node.func.attr in ("confirm", "confirmed"))
        )
    ]
    assert found == []


def test_statement_kinds_never_import_the_session():
    for folder in ("statements", "hints", "engines"):
        for path in sorted((PACKAGE / folder).rglob("*.py")):
            assert "dynosql.session" not in _imports(path), path


def test_front_doors_never_touch_a_client():
    for path in _front_doors():
        touches = [
            node.lineno
            for node in _nodes(path)
            if isinstance(node, ast.Attribute) and node.attr in ("client", "catalog")
        ]
        assert not touches, f"{path.name} lines {touches} reach past Session"


def test_the_planner_and_the_evaluator_are_pure():
    impure = ("dynosql.dynamo", "dynosql.session", "dynosql.context", "dynosql.statements")
    for folder in ("plan", "evaluate"):
        for path in sorted((PACKAGE / folder).rglob("*.py")):
            imported = _imports(path)
            assert not {m for m in imported if m.startswith(impure)}, path


def test_every_setting_is_defined_once():
    """The settings table is the one place: no other module spells a setting's choices."""
    from dynosql.settings import FORMATS

    literal = repr(FORMATS)[1:-1]  # '"table", "csv", ...' as written in a tuple
    spelled = [
        p.name
        for p in PACKAGE.rglob("*.py")
        if p.name != "settings.py" and literal.replace("'", '"') in p.read_text()
    ]
    assert spelled == []


def test_the_python_doors_reach_dynamodb_only_through_the_session():
    """The DB-API driver and the SQLAlchemy dialect are thin: no second engine beside the
    Session (no statement kind, context or AWS edge of their own)."""
    inner = ("dynosql.dynamo", "dynosql.statements", "dynosql.context", "dynosql.plan")
    for folder in ("dbapi", "sqla"):
        for path in sorted((PACKAGE / folder).rglob("*.py")):
            assert not {m for m in _imports(path) if m.startswith(inner)}, path


@pytest.mark.slow
def test_every_module_imports_on_its_own() -> None:
    # the graph above ignores a package's __init__ importing its submodules, but Python runs
    # that __init__ before any of its modules: importing `a.b.c` first must work too (an
    # `evaluate` module importing `plan.model` ran plan/__init__, whose planner imports
    # `evaluate` back, half made). Each module's import runs again every dynosql module it
    # imports, and four fifths of that was `dataclasses` compiling the same methods' source
    # again (exec of text): the child compiles each text once and runs that code, as exec of
    # the text would (the suite's slowest fast-to-write test: 8.0 s of CPU, now 2.8 s)
    code = (
        "import dataclasses, functools, importlib, sys\n"
        "compiled = functools.cache(lambda text: compile(text, '<string>', 'exec'))\n"
        "def exec_(source, globals=None, locals=None):\n"
        "    exec(compiled(source) if isinstance(source, str) else source, globals, locals)\n"
        "dataclasses.exec = exec_\n"
        "failed = []\n"
        "for name in sys.argv[1:]:\n"
        "    for loaded in [m for m in sys.modules if m == 'dynosql' or m.startswith('dynosql.')]:\n"
        "        del sys.modules[loaded]\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except ImportError as err:\n"
        "        failed.append(f'{name}: {err}')\n"
        "print('\\n'.join(failed))\n"
    )
    names = sorted(
        n for n in (_module_name(p) for p in PACKAGE.rglob("*.py")) if n != "dynosql.__main__"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *names],
        capture_output=True,
        text=True,
        check=True,
        cwd=PACKAGE.parent,
    )
    assert done.stdout.strip() == ""
