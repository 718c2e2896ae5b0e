"""Every registered statement kind, walked through every guard: what the pipeline does with a
statement follows from the `Effects` its kind declares (and the Scans its plan sends), never
from a call the kind must remember. A kind's case is the `example` it carries (`Kind.example`):
this file names no kind; a kind without one fails `test_every_kind_has_an_example`.

Each case makes a table of its own on the in-process moto server (three items and a sparse
GSI) and a directory of its own, runs its prelude with no guard, then its statement under one
guard, and watches every request the session sends: a refusal leaves nothing written, a dry
run writes nothing, no means nothing changed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from backends import ROOT, Backend, unique_name
from cli_runner import AWS_VARIABLES

from dynosql.errors import DynosqlError, GuardError, SqlError
from dynosql.session import Session
from dynosql.settings import Settings
from dynosql.sql import ast, keywords, parse
from dynosql.statements import kind_for, kind_of_type, registered

CHANGES = {
    "PutItem",
    "UpdateItem",
    "DeleteItem",
    "BatchWriteItem",
    "TransactWriteItems",
    "CreateTable",
    "UpdateTable",
    "DeleteTable",
    "UpdateTimeToLive",
    "UpdateContinuousBackups",
}


@dataclass(frozen=True)
class Case:
    sql: str
    prelude: tuple[str, ...] = ()


KINDS = registered()
# every kind's case is its example: its last statement, after the ones it needs first
CASES = {t.__name__: Case(k.example[-1], k.example[:-1]) for t, k in KINDS.items()}
KINDS_BY_NAME = {t.__name__: k for t, k in KINDS.items()}


def test_every_kind_has_an_example() -> None:
    assert [t.__name__ for t, kind in KINDS.items() if not kind.example] == []
    assert len(CASES) >= 33


def test_every_statement_class_names_its_kind() -> None:
    """A statement class finds its kind without a registry's line (`ast.Statement`): every
    class there is has one, and nothing else does."""
    classes, found = [ast.Statement], set()
    while classes:
        found.update(sub := classes.pop().__subclasses__())
        classes.extend(sub)
    assert {t.__name__ for t in found} == set(CASES)
    assert all(kind_of_type(t) is kind for t, kind in KINDS.items())
    with pytest.raises(SqlError, match="^cannot run Statement$"):
        kind_of_type(ast.Statement)


# a statement kind written in one module, as CONTRIBUTING describes: its class, its parse
# function, its Starter and its kind
SHOW_LIMITS = """
from dataclasses import dataclass

from dynosql.result import Result
from dynosql.sql import ast
from dynosql.sql.keywords import Starter
from dynosql.statements.kind import Kind, named, unplanned


@dataclass(frozen=True)
class ShowLimits(ast.Statement):
    pass


def parse(chunk, code, position):
    return ShowLimits()


def _run(ctx, statement):
    return Result.status(f"{ctx.settings.max_rcu} RCU at most")


STARTERS = (Starter("SHOW LIMITS", "SHOW LIMITS", parser=parse),)
KINDS = {ShowLimits: Kind(named("SHOW LIMITS"), unplanned(_run), example=("SHOW LIMITS",))}
"""
# the command line, run in a copy of the package; reports what it imported
RUN = """
import json, sys
import dynosql
from dynosql.cli import main
from dynosql.errors import SqlError
from dynosql.sql import parse

try:
    parse("SHOW LIMIT")
except SqlError as err:
    refused = err.message
code = main(sys.argv[1:])
kinds = sorted(m for m in sys.modules if m.startswith("dynosql.statements."))
print(json.dumps([dynosql.__file__, code, refused, kinds]), file=sys.stderr)
"""


def test_a_kind_in_one_module_runs_from_its_starter(moto_backend: Backend, tmp_path: Path) -> None:
    """CONTRIBUTING's recipe, whole: a copy of the package with one module added to
    dynosql/statements/, nothing else changed, runs the new statement from the command line.
    Its Starter is found in the module without importing it: the run imports the kinds of its
    statements and no other, and a SHOW the parser does not know names it."""
    copy = tmp_path / "copy"
    shutil.copytree(ROOT / "dynosql", copy / "dynosql")  # compiled modules too: still valid
    (copy / "dynosql" / "statements" / "show_limits.py").write_text(SHOW_LIMITS)
    env = {**os.environ, **AWS_VARIABLES, "PYTHONPATH": str(copy)}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    argv = ["--endpoint-url", moto_backend.endpoint_url, "--max-rcu", "7", "--format", "csv"]
    done = subprocess.run(
        [sys.executable, "-c", RUN, *argv, "-e", "SELECT 1 AS one; show  limits"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env=env,
        cwd=tmp_path,
        timeout=120,
    )
    ran, code, refused, kinds = json.loads(done.stderr.splitlines()[-1])
    assert Path(ran).parent == copy / "dynosql" and code == 0, done.stderr
    assert done.stdout.split() == ["one", "1"] and "\n7 RCU at most\n" in done.stderr
    assert "SHOW LIMITS" in refused and refused.startswith("expected SHOW ")
    assert {"dynosql.statements.select_values", "dynosql.statements.show_limits"} <= set(kinds)
    reading = {str(s.parser).partition(":")[0] for s in keywords.declared()}  # show.py, …
    assert len(reading) >= 5 and not reading & set(kinds), kinds


@dataclass
class Ran:
    error: DynosqlError | None
    sent: list[str]  # every request, by operation name
    asked: list[str]
    kind: str  # the type of the statement, as the Session resolved it

    @property
    def changed(self) -> bool:
        return any(op in CHANGES for op in self.sent)


def _table(backend: Backend) -> str:
    name = unique_name("guard")
    # a sparse GSI: DROP INDEX's (a name DynamoDB takes, 3 characters or more: IMPORT MODEL
    # checks the model it reads)
    backend.create_keyed_table(name, gsis={"gix": ("g", "S")})
    items = [{"pk": "p", "sk": Decimal(i), "v": Decimal(i)} for i in (1, 2, 3)]
    items.append({"pk": "A#x", "sk": Decimal(1), "g": "x"})
    backend.put_items(name, items)
    return name


def _run(
    backend: Backend,
    table: str,
    case: Case,
    tmp_path: Path,
    settings: dict[str, Any],
    door: Callable[[Session], None] | None = None,
) -> tuple[Ran, Any]:
    """The case's statement under `settings` (its prelude run first, with none); its kind's
    effects, as the Session found the kind."""
    session = Session(backend.client(), settings=Settings(journal_dir=str(tmp_path / "j")))
    session.assume_yes = True
    for sql in case.prelude:
        list(session.run(sql.format(t=table, dir=tmp_path)))
    session.assume_yes = False
    asked: list[str] = []
    session.confirm = lambda question: asked.append(question) and False  # the person says no
    for name, value in settings.items():
        setattr(session.settings, name, value)
    if door is not None:
        door(session)
    sent: list[str] = []
    session.client.meta.events.register(
        "before-call.dynamodb", lambda model, **_: sent.append(model.name)
    )
    statement = parse(case.sql.format(t=table, dir=tmp_path))
    bound = session.resolve(session.bind(statement))
    effects = kind_for(bound, session.in_transaction).effects(bound)
    error = None
    try:
        session.run_statement(statement).all()
    except DynosqlError as err:
        error = err
    finally:
        session.close()
    return Ran(error, sent, asked, type(bound).__name__), effects


def _script(session: Session) -> None:
    session.confirm = None  # nobody to ask, and no --yes


@pytest.mark.slow  # 33 kinds, 7 runs each: ~6 s of CPU
@pytest.mark.parametrize("name", sorted(CASES))
def test_every_guard_follows_the_kinds_effects(
    moto_backend: Backend, name: str, tmp_path: Path
) -> None:
    """One table per kind, and the person at the door says no to every question: every guard
    leaves the table as it was when it refuses, dry runs or hears no; a change that needs no
    yes is made only in the last run."""
    case = CASES[name]
    table = _table(moto_backend)

    def run(settings: dict[str, Any], door: Callable[[Session], None] | None = None) -> Any:
        return _run(moto_backend, table, case, tmp_path, settings, door)

    # 2. --read-only refuses every change, before any request (not even DescribeTable)
    ran, effects = run({"read_only": True})
    assert ran.kind == name  # the example is a statement of its own kind
    assert isinstance(ran.error, GuardError) == effects.changes, ("read_only", ran.error)
    assert not effects.changes or ran.sent == [], ("read_only", ran.sent)
    # 6: --max-wcu refuses what cannot stop half-way, whole
    ran, effects = run({"max_wcu": Decimal("0.5")})
    if effects.all_or_nothing:
        assert isinstance(ran.error, GuardError) and not ran.changed, ("max_wcu", ran.error)
    # 5. --dry-run changes nothing, and a change asks nothing
    ran, effects = run({"dry_run": True})
    assert not ran.changed, ("dry_run", ran.sent)
    assert not effects.dry_run or ran.asked == [], ("dry_run", ran.asked)
    # 6 and 7, and the person says no: nothing changed
    ran, effects = run({"confirm_over": 0})
    if effects.destructive or effects.many:
        assert not ran.changed, ("no", ran.sent, ran.error)
    # 1. inside BEGIN … COMMIT, what ROLLBACK cannot reach is refused, nothing sent
    inside = case if case.prelude[:1] == ("BEGIN",) else Case(case.sql, ("BEGIN", *case.prelude))
    ran, effects = _run(moto_backend, table, inside, tmp_path, {})
    cannot = effects.changes and not effects.rollback
    assert isinstance(ran.error, GuardError) == cannot, ("transaction", ran.error)
    assert not cannot or not ran.changed, ("transaction", ran.sent)
    # 3. --fail-on-scan: no Scan of any size is sent (a statement that Scans is refused)
    ran, _ = run({"fail_on_scan": True})
    assert "Scan" not in ran.sent, ("fail_on_scan", ran.sent)
    # 6 and 7, with nobody to ask: a destructive change, an unbounded write, more than
    # --confirm-over items are refused, or found nothing to change (last: a change that
    # needs no yes is made)
    ran, effects = run({"confirm_over": 0}, _script)
    if effects.destructive or effects.unbounded or effects.many:
        assert isinstance(ran.error, GuardError) or not ran.changed, ("script", ran.sent)


def _changing_shape(kind: Any) -> tuple[bool, ...] | None:
    """How a kind's example changes things, as the two guards below meet it: whether it reads
    first, and what it changes (None: it changes nothing, or it is resolved from another
    kind's statement only after its prelude, as an entity's are)."""
    statement = parse(kind.example[-1].format(t="t", dir="d"))
    if kind_of_type(type(statement)) is not kind or not kind.effects(statement).changes:
        return None
    effects = kind.effects(statement)
    return (effects.reads, effects.writes, effects.schema, effects.deletes)


def _one_of_each_way() -> tuple[str, ...]:
    """The fast loop's share of the walk above: one kind of each way of changing things (the
    first by name), under the two guards every change obeys before its first request or after
    its reads."""
    first: dict[tuple[bool, ...], str] = {}
    for name in sorted(CASES):
        shape = _changing_shape(KINDS_BY_NAME[name])
        if shape is not None:
            first.setdefault(shape, name)
    return tuple(first.values())


FAST = _one_of_each_way()


def test_the_fast_sample_takes_each_way_of_changing_things() -> None:
    # six today: schema with or without deletes, items with or without a read first, …
    assert len(FAST) >= 6 and len({_changing_shape(KINDS_BY_NAME[n]) for n in FAST}) == len(FAST)


@pytest.mark.parametrize("name", FAST)
def test_read_only_and_dry_run_leave_every_change_unsent(
    moto_backend: Backend, name: str, tmp_path: Path
) -> None:
    case = CASES[name]
    table = _table(moto_backend)
    ran, effects = _run(moto_backend, table, case, tmp_path, {"read_only": True})
    assert effects.changes and isinstance(ran.error, GuardError) and ran.sent == []
    ran, _ = _run(moto_backend, table, case, tmp_path, {"dry_run": True})
    assert ran.error is None and not ran.changed and ran.asked == [], ran.sent


def test_a_kind_that_changes_without_asking_is_refused(
    moto_backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kind whose run sends a change without handing the pipeline an Ask first cannot exist:
    the port refuses the request (the Session closes it for each statement; only the
    pipeline's go opens it), and nothing is written."""
    import dynosql.session
    from dynosql.result import Result, WriteStats
    from dynosql.statements.kind import Kind, named, unplanned

    table = _table(moto_backend)

    def careless(ctx: Any, _statement: Any) -> Result:
        writer = ctx.port.writer(WriteStats())
        info = ctx.table(table)
        item = {"pk": {"S": "zz"}, "sk": {"N": "1"}}
        writer.send("PutItem", {"TableName": table, "Item": item}, info, lambda _old: None)
        return Result.status("written")

    real = dynosql.session.kind_for
    monkeypatch.setattr(
        dynosql.session,
        "kind_for",
        lambda bound, inside: (
            Kind(named("CARELESS"), unplanned(careless))
            if isinstance(bound, type(parse("SET numeric_digits = 1")))
            else real(bound, inside)
        ),
    )
    session = Session(moto_backend.client())
    with pytest.raises(GuardError, match="PutItem was about to be sent before the guards"):
        session.execute("SET numeric_digits = 1").all()
    scanned = moto_backend.client().scan(TableName=table)["Items"]
    assert len(scanned) == 4 and {"S": "zz"} not in [i["pk"] for i in scanned]


@dataclass
class _Doors:
    confirm: Callable[[str], bool] | None
    interactive: bool
    assume_yes: bool = False


@dataclass
class _Ctx:
    doors: _Doors
    settings: Settings
    transaction: Any = None
    can_confirm: bool = True

    def confirmed(self, question: str, refusal: str) -> bool:  # pragma: no cover - unused
        raise AssertionError(question)

    def tell(self, text: str) -> None:  # pragma: no cover - unused
        raise AssertionError(text)


def test_a_refusal_the_reads_found_and_an_offer_are_the_pipelines() -> None:
    """UNDO's refusals (damaged journal, another target, a recreated table) are raised by the
    pipeline, dry run or not; CREATE ENTITY's offer is asked of a person only, and no answer
    (a script) keeps things as they are rather than refusing."""
    from dynosql import guards
    from dynosql.guards import Ask, Verdict

    changes = guards.Effects(writes=True, destructive=True)
    dry = Settings(dry_run=True)
    said: list[str] = []
    person = _Doors(lambda q: said.append(q) or True, interactive=True)
    with pytest.raises(GuardError, match="^the journal is damaged$"):
        guards.decide(_Ctx(person, dry), "UNDO", changes, Ask(refused="the journal is damaged"))
    offer = Ask(offer="append it?")
    assert guards.decide(_Ctx(person, Settings()), "X", guards.NOTHING, offer) is Verdict.GO
    script = _Doors(None, interactive=False)
    assert guards.decide(_Ctx(script, Settings()), "X", guards.NOTHING, offer) is Verdict.KEPT
    no = _Doors(lambda q: False, interactive=True)
    assert guards.decide(_Ctx(no, Settings()), "X", guards.NOTHING, offer) is Verdict.KEPT
    assert said == ["append it?"]
