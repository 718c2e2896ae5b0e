"""THE keyword vocabulary of dynosql's SQL: every word the grammar (``grammar/README.md``) reads
as a keyword, written once, with enough structure that each consumer takes what it needs.

- ``STARTERS``: the statements, by their leading word(s), with what completion offers at a
  statement's start (``INSERT INTO``), the function that reads them and whether ``EXPLAIN`` /
  ``EXPLAIN ANALYZE`` takes them. The parsers' dispatch (`leading`), the first-word spelling
  hint and completion at a statement's start all come from here. ``CORE`` holds the statements
  parsed in sql/ (SELECT, the writes, transactions, tables and COPY, entities, …); a statement
  kind that reads its own statement declares its Starters in its module (``STARTERS`` beside
  ``KINDS`` in dynosql/statements/), found there without importing it (`declared`).
- ``CLAUSES``: the words after the first, by the part of the grammar that uses them (a word may
  be in several): ``select`` (and its conditions), ``write``, ``table``, ``copy``, ….
- ``TYPE_WORDS`` (key types), ``PROJECTIONS``, ``BILLING_MODES``, ``COPY_FORMATS``,
  ``LITERALS`` (TRUE, FALSE, NULL and their values), ``RETURNING``'s images and ``FUNCTIONS``
  (with kind and arity).

Derived, for the consumers:

- ``KEYWORDS``: every keyword (the highlighter; completion where nothing narrower fits);
- ``STARTER_WORDS``: the words a statement may start with (the first-word spelling hint);
- ``RESERVED``: the words a SELECT or a write reads as keywords (the spelling hint inside those
  statements; completion quotes an attribute so named).

A word added here is highlighted, completed and suggested by "did you mean" (tests/test_keywords.py
checks that, and that every keyword of the grammar's EBNF is here).
"""

from __future__ import annotations

import ast as python_ast
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from dynosql.errors import SqlError
from dynosql.position import Pos


@dataclass(frozen=True)
class Starter:
    """A statement, by its leading word(s). One whose first word is another's whole lead
    (SHOW TABLES under SHOW, CREATE ENTITY under CREATE) is read under it: dispatched by its
    longer words, but neither offered at a statement's start nor its first word (``UNDER``)."""

    lead: str  # the words that begin it, as dispatch matches them: "SELECT", "START TRANSACTION"
    opening: str  # what completion offers at a statement's start: "INSERT INTO"
    # the parser's family that reads it (read, explain, show, table, copy, put, update, delete,
    # transaction, check, undo, entity, model); "" for one read by its kind module alone
    family: str = ""
    explain: bool = False  # EXPLAIN takes it (plans it, sends nothing)
    analyze: bool = False  # EXPLAIN ANALYZE takes it (runs it)
    aliases: tuple[str, ...] = ()  # other spellings of its first word (DESC for DESCRIBE)
    # the function that reads it, called by the parser's dispatch as function(chunk, code,
    # position), so a new statement adds no branch there: "module:function" here; in a kind
    # module, the function itself (``parser=parse_describe``), which the vocabulary reads as
    # "module:function" without importing the module (`declared`)
    parser: str | Callable[..., Any] = ""
    # the function that reads it after EXPLAIN [ANALYZE], as function(chunk, match, pos):
    # `chunk` with the EXPLAIN words blanked, `match` theirs (group 1: ANALYZE), `pos` the
    # parser's position of an index in a chunk's text
    explainer: str | Callable[..., Any] = ""
    # how a message names it, with its operands ("SHOW HOT KEYS FROM table"); its opening when
    # empty. Two Starters of one statement (SHOW ENTITIES, SHOW ENTITIES FROM) name it alike
    usage: str = ""

    @property
    def word(self) -> str:
        """Its first word."""
        return self.lead.split()[0]


_TABLE = "dynosql.sql.table_and_copy_parse:parse_table_or_copy"
_TABLE_EXPLAIN = "dynosql.sql.table_and_copy_parse:explain"
_ENTITY = "dynosql.sql.entity_parse:parse_entity_statement"
_ENTITY_EXPLAIN = "dynosql.sql.entity_parse:explain"
# the statements parsed in sql/ (the parser's own branches and the families it names); a kind
# that reads its own statement declares its Starters in its module (see `declared`)
CORE = (
    Starter("SELECT", "SELECT", "read", explain=True, analyze=True),
    Starter("EXPLAIN", "EXPLAIN", "explain"),
    Starter("SHOW", "SHOW", "show"),
    Starter("CREATE", "CREATE", "table", explain=True, parser=_TABLE, explainer=_TABLE_EXPLAIN),
    Starter("ALTER", "ALTER", "table", explain=True, parser=_TABLE, explainer=_TABLE_EXPLAIN),
    Starter("DROP", "DROP", "table", explain=True, parser=_TABLE, explainer=_TABLE_EXPLAIN),
    Starter("COPY", "COPY", "copy", explain=True, parser=_TABLE, explainer=_TABLE_EXPLAIN),
    Starter("INSERT", "INSERT INTO", "put", explain=True, analyze=True),
    Starter("UPSERT", "UPSERT INTO", "put", explain=True, analyze=True),
    Starter("REPLACE", "REPLACE INTO", "put", explain=True, analyze=True),
    Starter("UPDATE", "UPDATE", "update", explain=True, analyze=True),
    Starter("DELETE", "DELETE FROM", "delete", explain=True, analyze=True),
    Starter("BEGIN", "BEGIN", "transaction"),
    Starter("START TRANSACTION", "START TRANSACTION", "transaction"),
    Starter("COMMIT", "COMMIT", "transaction"),
    Starter("ROLLBACK", "ROLLBACK", "transaction"),
    Starter("EXISTS", "EXISTS", "check"),  # PartiQL's condition check, inside BEGIN … COMMIT
    Starter("UNDO", "UNDO", "undo"),
    Starter(
        "SHOW CREATE", "SHOW CREATE TABLE", "table", parser=_TABLE, usage="SHOW CREATE TABLE t"
    ),
    Starter(
        "CREATE ENTITY",
        "CREATE ENTITY",
        "entity",
        explain=True,
        parser=_ENTITY,
        explainer=_ENTITY_EXPLAIN,
    ),
    Starter(
        "DROP ENTITY",
        "DROP ENTITY",
        "entity",
        explain=True,
        parser=_ENTITY,
        explainer=_ENTITY_EXPLAIN,
    ),
    Starter(
        "SHOW CREATE ENTITY",
        "SHOW CREATE ENTITY",
        "entity",
        parser=_ENTITY,
        usage="SHOW CREATE ENTITY e",
    ),
    Starter(
        "SHOW ENTITIES",
        "SHOW ENTITIES",
        "entity",
        parser=_ENTITY,
        usage="SHOW ENTITIES [FROM table]",  # and SHOW ENTITIES FROM's, in entities.py
    ),
    Starter(
        "DESCRIBE ENTITY",
        "DESCRIBE ENTITY",
        "entity",
        aliases=("DESC ENTITY",),
        parser=_ENTITY,
    ),
)
WRITE_FAMILIES = ("put", "update", "delete", "transaction", "undo")  # read by write_parse

_CONDITION = "AND OR NOT IN BETWEEN LIKE ESCAPE IS MISSING"
CLAUSES: dict[str, tuple[str, ...]] = {
    area: tuple(text.split())
    for area, text in {
        # WITH opens a common table expression: refused, but SQL reads it as a keyword
        "select": "SELECT DISTINCT AS FROM WHERE GROUP BY HAVING ORDER ASC DESC NULLS FIRST LAST "
        f"LIMIT TABLESAMPLE SYSTEM PERCENT REPEATABLE EXPORT WITH CASE WHEN THEN ELSE END CAST "
        "JOIN INNER LEFT OUTER ON "
        f"{_CONDITION}",
        "explain": "ANALYZE AT PER SECOND PYTHON PARTIQL",  # … AT n PER SECOND; (FORMAT PYTHON): FORMAT is copy's
        "show": "TABLES HOT KEYS ENTITIES FROM BY WITH SIZES SAMPLE PERCENT REPEATABLE LIMIT CREATE "
        "TABLE",
        "set": "TO",
        # VALUE and ALL|MODIFIED OLD|NEW: PartiQL's INSERT INTO t VALUE {…} and RETURNING
        "write": "INTO VALUES VALUE SELECT ON CONFLICT DO NOTHING SET REMOVE FROM WHERE "
        "RETURNING ALL MODIFIED OLD NEW " + _CONDITION,
        "transaction": "TRANSACTION WORK",
        "table": "TABLE INDEX ON PRIMARY KEY BILLING PROVISIONED WITH GSI LSI PROJECTION TTL "
        "DELETION PROTECTION POINT IN TIME RECOVERY SET OFF",
        "copy": "TO FROM SELECT FORMAT START AT LINE ELEMENT SKIP BAD",
        "undo": "LAST FORCE TARGET DAMAGED",
        "model": "MODEL TO SAMPLE",
        "entity": "ENTITY ENTITIES ON KEY INDEX WHERE IF EXISTS",
        # CAST's types (sql/casts.py): DynamoDB's number, string, boolean and binary
        "cast": "NUMBER NUMERIC DECIMAL FLOAT DOUBLE REAL INTEGER INT BIGINT SMALLINT STRING TEXT "
        "VARCHAR CHAR BOOLEAN BINARY VARBINARY BLOB",
        # PartiQL's type predicates: x IS STRING (attribute_type); names elsewhere
        "types": "STRING NUMERIC BOOLEAN BOOL BLOB LIST STRUCT TUPLE",
    }.items()
}
# a key attribute's type as CREATE TABLE / CREATE INDEX write it -> its DynamoDB type code
TYPE_WORDS = {"S": "S", "N": "N", "B": "B", "STRING": "S", "NUMBER": "N", "BINARY": "B"}
PROJECTIONS = ("ALL", "KEYS_ONLY", "INCLUDE")
BILLING_MODES = ("PAY_PER_REQUEST", "ON_DEMAND", "PROVISIONED")
COPY_FORMATS = ("jsonl", "csv", "json", "dynamodb", "parquet")  # names, not keywords: FORMAT csv
LITERALS = {"TRUE": True, "FALSE": False, "NULL": None}
RETURNING = ("*", "old.*")  # RETURNING * (the item after the write) or old.* (before)


@dataclass(frozen=True)
class Function:
    name: str  # as it is usually written: COUNT, begins_with (names are case-insensitive)
    # aggregate, condition (a predicate), operand (a value), update (SET's right) or scalar
    # (an expression computed client-side)
    kind: str
    arity: int  # its arguments (an aggregate's one: *, p or DISTINCT p)


FUNCTIONS = (
    *(Function(name, "aggregate", 1) for name in ("COUNT", "SUM", "AVG", "MIN", "MAX")),
    Function("begins_with", "condition", 2),
    Function("contains", "condition", 2),
    Function("attribute_exists", "condition", 1),
    Function("attribute_not_exists", "condition", 1),
    Function("attribute_type", "condition", 2),
    Function("size", "operand", 1),
    Function("if_not_exists", "update", 2),
    Function("list_append", "update", 2),
    Function("set_add", "update", 2),  # PartiQL's ADD of set elements
    Function("set_delete", "update", 2),  # PartiQL's DELETE of set elements
    # scalar expressions, computed client-side (dynosql/evaluate/scalar.py); arity: the most
    *(
        Function(name, "scalar", arity)
        for name, arity in (
            ("ROUND", 2),
            ("FLOOR", 1),
            ("CEIL", 1),
            ("CEILING", 1),
            ("ABS", 1),
            ("CONCAT", 2),
            ("SUBSTR", 3),
            ("SUBSTRING", 3),
            ("LENGTH", 1),
            ("CHAR_LENGTH", 1),
            ("LOWER", 1),
            ("UPPER", 1),
            ("TRIM", 1),
            ("REPLACE", 3),
            ("SPLIT_PART", 3),
            ("STARTS_WITH", 2),
            ("COALESCE", 2),
            ("NULLIF", 2),
            ("DATE_TRUNC", 2),
            ("FROM_UNIXTIME", 1),
            ("TO_UNIXTIME", 1),
            ("NOW", 0),
            ("ITEM_SIZE", 0),
            ("ITEM_RCU", 1),
            ("ITEM_WCU", 1),
        )
    ),
)
# the item-size calculator's functions (dynosql/evaluate/scalar.py `item_measure`): each measures
# the whole item as stored, not its arguments; the one argument a mode, the first the default
ITEM_MEASURES: dict[str, tuple[str, ...]] = {
    "ITEM_SIZE": (),  # bytes, by DynamoDB's item-size rules
    "ITEM_RCU": ("eventual", "strong", "transactional"),  # one GetItem (or transactional read)
    "ITEM_WCU": ("standard", "transactional"),  # one PutItem/DeleteItem on the table
}


def functions(*kinds: str) -> tuple[str, ...]:
    """The names of the functions of these kinds, in FUNCTIONS' order."""
    return tuple(f.name for f in FUNCTIONS if f.kind in kinds)


def starters(*families: str) -> tuple[Starter, ...]:
    """The statements of these families (all of them when none is named)."""
    every = _vocabulary().starters
    return tuple(s for s in every if not families or s.family in families)


def words(*areas: str) -> frozenset[str]:
    """The keywords of these parts of CLAUSES."""
    return frozenset(w for area in areas for w in CLAUSES[area])


def leading(starters_: tuple[Starter, ...]) -> re.Pattern[str]:
    """A statement (after blanks) that begins with one of these starters' leading words."""
    alternatives = sorted(
        (r"\s+".join(lead.split()) for s in starters_ for lead in (s.lead, *s.aliases)),
        key=len,
        reverse=True,
    )
    return re.compile(rf"\s*({'|'.join(alternatives)})\b", re.I)


def show_expected() -> str:
    """What a SHOW that is none of the SHOW statements is told: those statements, with their
    operands."""
    usages = (s.usage or s.opening for s in _vocabulary().under if s.word == "SHOW")
    return "expected " + listing(list(dict.fromkeys(usages)))


def show_refused(code: str, position: Callable[[int], Pos]) -> SqlError:
    """The error for a SHOW that is none of the SHOW statements (`code`: comments blanked;
    `position`: the script's line and column of an offset of it), at its first word."""
    at = position(len(code) - len(code.lstrip()))
    return SqlError(show_expected(), at.line, at.col)


def listing(names: list[str] | tuple[str, ...]) -> str:
    """``A, B or C``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


# --- the vocabulary whole: CORE and what the kind modules declare ---------------------------

# made on first use (PEP 562 `__getattr__`): importing this module reads no file (every
# statement class imports it, and a script found parsed on disk needs no vocabulary)
STARTERS: tuple[Starter, ...]  # every statement's leading words, in CORE's order, then the kinds'
UNDER: tuple[Starter, ...]  # those read under another's first word
STARTER_WORDS: frozenset[str]  # the words a statement may start with
RESERVED: frozenset[str]
KEYWORDS: frozenset[str]


@dataclass(frozen=True)
class _Vocabulary:
    starters: tuple[Starter, ...]
    under: tuple[Starter, ...]
    starter_words: frozenset[str]
    reserved: frozenset[str]
    keywords: frozenset[str]


@cache
def _vocabulary() -> _Vocabulary:
    every = (*CORE, *declared())
    leads = {s.lead for s in every}
    starters_ = tuple(s for s in every if s.word == s.lead or s.word not in leads)
    starter_words = frozenset(w for s in starters_ for w in (s.word, *s.aliases))
    reserved = (
        starter_words
        | words("select", "explain", "show", "set", "write", "transaction")
        | frozenset(LITERALS)
        | frozenset({"IF"})  # DROP ENTITY IF EXISTS; sqlglot reads IF as a function, never a name
    )
    return _Vocabulary(
        starters_,
        tuple(s for s in every if s not in starters_),
        starter_words,
        reserved,
        reserved
        | words("table", "copy", "undo", "entity", "types", "model", "cast")
        | frozenset(TYPE_WORDS)
        | frozenset(PROJECTIONS)
        | frozenset(BILLING_MODES)
        | frozenset(w for s in every for w in s.lead.split()),
    )


def __getattr__(name: str) -> Any:
    if name not in ("STARTERS", "UNDER", "STARTER_WORDS", "RESERVED", "KEYWORDS"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_vocabulary(), name.lower())
    globals()[name] = value  # found directly from now on
    return value


KINDS_PACKAGE = "dynosql.statements"
_KINDS_FOLDER = Path(__file__).parent.parent / "statements"
_DECLARES = re.compile(r"^STARTERS\b[^=\n]*=", re.M)  # STARTERS = (…), at column 0
_TRIPLE = re.compile(r'"""|\'\'\'')  # where a docstring (or a long string) opens or closes
_FUNCTIONS = ("parser", "explainer")  # the arguments that may name a function of the module


def kind_files(folder: Path = _KINDS_FOLDER) -> list[Path]:
    """The kind modules: the files a Starter may be declared in (the parse cache's fingerprint
    covers them all)."""
    return sorted(
        Path(e.path) for e in os.scandir(folder) if e.name.endswith(".py") and e.is_file()
    )


@cache
def declared(folder: Path = _KINDS_FOLDER) -> tuple[Starter, ...]:
    """The Starters the kind modules declare beside their ``KINDS`` (``STARTERS = (Starter(…),
    …)`` in a module of dynosql/statements/), read from their source, not imported: the
    dispatch, the spelling hints and completion need every statement's words, and importing
    every kind costs about 0.1 s of CPU that a ``dynosql -e`` running one statement does not
    pay (the parser imports a kind's module when it dispatches a statement there). So a
    declaration is written to be read without running it: ``Starter(…)`` calls with literal
    arguments, ``parser=`` and ``explainer=`` naming a function of the module (read as
    "module:function"); anything else is refused, with its file and line."""
    found: list[Starter] = []
    for path in kind_files(folder):
        source = path.read_bytes()
        if b"\nSTARTERS" not in source:  # most kinds: no need to decode or search them
            continue
        text = source.decode("utf-8")
        if (m := _declaration(text)) is not None:
            before = text.count("\n", 0, m.start())  # the lines before the declaration
            try:
                found += _starters(_assignment(text[m.start() :]), f"{KINDS_PACKAGE}.{path.stem}")
            except _Unreadable as err:
                raise ValueError(
                    f"{path}:{before + err.line}: STARTERS takes Starter(…) calls with literal "
                    f"arguments, parser= and explainer= naming a function of the module ({err})"
                ) from None
    return tuple(found)


def _declaration(text: str) -> re.Match[str] | None:
    """The first ``STARTERS =`` at column 0 that is code: a line of a docstring (or of another
    triple-quoted string) that begins so is text, however it reads."""
    for m in _DECLARES.finditer(text):
        if _quoted_at(text, m.start()) is None:
            return m
    return None


def _quoted_at(text: str, end: int) -> str | None:
    """The triple quote left open at offset `end` of `text`, or None."""
    open_ = None
    for quote in _TRIPLE.finditer(text, 0, end):
        if open_ is None:
            open_ = quote.group()
        elif quote.group() == open_:
            open_ = None
    return open_


class _Unreadable(ValueError):
    def __init__(self, message: str, line: int = 1):
        super().__init__(message)
        self.line = line  # of the declaration, from 1


def _assignment(text: str) -> python_ast.expr:
    """The value assigned by the statement `text` starts with: it ends before a line that
    starts at column 0 (the first such end that parses)."""
    for m in (*re.finditer(r"\n(?=\S)", text), None):
        try:
            node = python_ast.parse(text if m is None else text[: m.start()]).body[0]
        except SyntaxError:
            continue
        if isinstance(node, python_ast.Assign | python_ast.AnnAssign) and node.value is not None:
            return node.value
        break
    raise _Unreadable("not an assignment")


def _starters(value: python_ast.expr, module: str) -> list[Starter]:
    found = []
    calls = value.elts if isinstance(value, python_ast.Tuple | python_ast.List) else [value]
    for call in calls:
        line = getattr(call, "lineno", 1)
        if not isinstance(call, python_ast.Call) or _name(call.func) != "Starter":
            raise _Unreadable("not a Starter(…) call", line)
        try:
            args = [python_ast.literal_eval(a) for a in call.args]
            options: dict[str, Any] = {
                k.arg: f"{module}:{k.value.id}"
                if k.arg in _FUNCTIONS and isinstance(k.value, python_ast.Name)
                else python_ast.literal_eval(k.value)
                for k in call.keywords
                if k.arg is not None
            }
            found.append(Starter(*args, **options))
        except (ValueError, TypeError) as err:
            raise _Unreadable(str(err), line) from None
    return found


def _name(node: python_ast.expr) -> str:
    return node.id if isinstance(node, python_ast.Name) else getattr(node, "attr", "")


FUNCTION_NAMES = frozenset(f.name.lower() for f in FUNCTIONS)
