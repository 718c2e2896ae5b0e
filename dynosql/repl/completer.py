"""Context-aware completion for the REPL.

`suggest(text_before_cursor, text_after_cursor, metadata)` is pure: it reads the statement
around the cursor and asks `metadata` (anything with the `Metadata` methods) for names. What it
offers depends on where the cursor stands:

- the start of a statement: statement keywords; a ``\\`` starts a backslash command;
- after FROM, JOIN, DESCRIBE, ``\\d``: table names; ``table.`` after FROM or JOIN: that
  table's indexes; ``o.`` where ``o`` names a source (a join's alias): that source's columns;
- after SELECT, WHERE/AND/OR/NOT, ORDER BY, GROUP BY, HAVING and commas in those clauses:
  the attributes of the statement's table (key attributes from DescribeTable plus names seen
  in a small sample read), functions, and a few keywords;
- after SET: setting names, then their values; after ``\\format``: formats;
- inside INSERT/UPSERT/REPLACE, UPDATE, DELETE: see `write_complete`;
- elsewhere: keywords and functions. Nothing inside strings or comments.

`suggest` finds the cursor's place (`_Cursor`) and asks `RULES` in order: the first rule that
applies says what to offer; the keywords that follow a word are tables (`AFTER`,
`CLAUSE_NEXT`) of the vocabulary's (`dynosql.sql.keywords`).

`SessionMetadata` is the live source (cached; `refresh` forgets); `StaticMetadata` serves
tests and anything offline.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from prompt_toolkit.completion import CompleteEvent, Completer, Completion, PathCompleter
from prompt_toolkit.document import Document

from dynosql.repl.highlight import Token, significant, statement_start, tokenize
from dynosql.repl.write_complete import CONDITION_FUNCTIONS, complete_write
from dynosql.settings import SETTINGS as SETTING_TABLE
from dynosql.sql import keywords as vocabulary

if TYPE_CHECKING:
    from dynosql.session import Session

# the keywords and functions are the vocabulary's (dynosql.sql.keywords)
OPENINGS = tuple(s.opening for s in vocabulary.STARTERS)  # what a statement starts with
EXPLAINED = tuple(s.opening for s in vocabulary.STARTERS if s.explain)  # after EXPLAIN
ANALYZED = tuple(s.opening for s in vocabulary.STARTERS if s.analyze)  # after EXPLAIN ANALYZE
TABLE_STARTERS = tuple(s.word for s in vocabulary.starters("table", "copy", "model"))
AGGREGATES = vocabulary.functions("aggregate")
ALL_FUNCTIONS = tuple(f.name for f in vocabulary.FUNCTIONS)
SETTINGS = tuple(s.name for s in SETTING_TABLE if s.live)
SETTING_VALUES = {s.name: s.kind.words for s in SETTING_TABLE}
COMPARISONS = {"=", "<>", "!=", "<", "<=", ">", ">=", "IN", "BETWEEN", "LIKE"}
# after SHOW, the rest of each SHOW statement's opening: TABLES, HOT KEYS FROM, …
SHOW_NEXT = [s.opening.split(None, 1)[1] for s in vocabulary.UNDER if s.word == "SHOW"]
NAME_KINDS = ("word", "keyword", "function", "identifier")
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class Metadata(Protocol):
    def table_names(self) -> list[str]: ...

    def table(self, name: str) -> Any: ...  # TableInfo or None

    def attributes(self, name: str) -> list[str]: ...

    def cached_attributes(self) -> list[str]: ...


@dataclass(frozen=True)
class Suggestion:
    text: str  # what is inserted
    kind: str  # keyword, function, table, index, attribute, command, setting, value
    start: int  # characters before the cursor that `text` replaces (as a negative offset)
    meta: str = ""


def key_attributes(info: Any) -> list[str]:
    """Key attributes of the table and its indexes, and INCLUDE'd attributes, in that order."""
    names: dict[str, None] = {}
    for path in info.access_paths:
        for name in path.keys.names:
            names[name] = None
    for path in info.indexes:
        for name in path.included:
            names[name] = None
    return list(names)


class StaticMetadata:
    """In-memory metadata: TableInfo objects and, per table, attribute names seen in items."""

    def __init__(self, tables: Iterable[Any], samples: dict[str, list[str]] | None = None):
        self.tables = {t.name: t for t in tables}
        self.samples = samples or {}

    def table_names(self) -> list[str]:
        return list(self.tables)

    def table(self, name: str) -> Any:
        return self.tables.get(name)

    def attributes(self, name: str) -> list[str]:
        info = self.tables.get(name)
        if info is None:
            return []
        keys = key_attributes(info)
        return keys + sorted(set(self.samples.get(name, ())) - set(keys))

    def cached_attributes(self) -> list[str]:
        names: dict[str, None] = {}
        for name in self.tables:
            names.update(dict.fromkeys(self.attributes(name)))
        return list(names)


class SessionMetadata:
    """Names from a live session: ListTables and DescribeTable through the session's catalog,
    and attribute names from `Session.sample_attributes` (one small Scan per table, read once,
    counted and guarded like any read). Failures complete nothing rather than disturb the
    prompt. `refresh` forgets everything (``\\refresh``)."""

    def __init__(self, session: Session):
        self.session = session
        self._lock = threading.RLock()
        self._names: list[str] | None = None
        self._tables: dict[str, Any] = {}
        self._samples: dict[str, list[str]] = {}
        self._version = getattr(session, "catalog_version", 0)

    def refresh(self) -> None:
        with self._lock:
            self._names = None
            self._tables.clear()
            self._samples.clear()
            self.session.refresh()
            self._version = self.session.catalog_version

    def _follow(self) -> None:
        """Forget what the session forgot (a CREATE or DROP since: completion follows)."""
        version = getattr(self.session, "catalog_version", 0)
        if version != self._version:
            self._names = None
            self._tables.clear()
            self._samples.clear()
            self._version = version

    def table_names(self) -> list[str]:
        with self._lock:
            self._follow()
            if self._names is None:
                try:
                    self._names = self.session.tables()
                except Exception:  # noqa: BLE001 - completion must never break the prompt
                    return []
            return self._names + self.session.entity_names()  # an entity reads like a table

    def table(self, name: str) -> Any:
        entity = self.session.entity(name)
        if entity is not None:  # its table, with the indexes it lives in
            info = self.table(entity.table)
            if info is None:
                return None
            mine = {a.index for a in entity.indexes}
            return replace(info, indexes=tuple(ix for ix in info.indexes if ix.name in mine))
        with self._lock:
            self._follow()
            if name not in self._tables:
                try:
                    self._tables[name] = self.session.table(name)
                except Exception:  # noqa: BLE001
                    self._tables[name] = None
            return self._tables[name]

    def attributes(self, name: str) -> list[str]:
        entity = self.session.entity(name)
        if entity is not None:  # its columns, then the other attributes seen in its table
            seen = self.attributes(entity.table)
            owned = set(entity.attributes) - set(entity.columns)
            return [*entity.columns, *(a for a in seen if a not in owned)]
        info = self.table(name)
        if info is None:
            return []
        with self._lock:
            if name not in self._samples:
                self._samples[name] = self._sample(name)
            sampled = self._samples[name]
        keys = key_attributes(info)
        return keys + [a for a in sampled if a not in keys]

    def cached_attributes(self) -> list[str]:
        with self._lock:
            names: dict[str, None] = {}
            for table, info in self._tables.items():
                if info is not None:
                    names.update(dict.fromkeys(key_attributes(info)))
                    names.update(dict.fromkeys(self._samples.get(table, ())))
            return list(names)

    def _sample(self, name: str) -> list[str]:
        try:
            return self.session.sample_attributes(name, self.session.settings.sample_rows)
        except Exception:  # noqa: BLE001 - completion must never break the prompt
            return []


# --- the pure part -------------------------------------------------------------------------------


def quote_name(name: str) -> str:
    """An attribute or table name as it must be written in SQL."""
    if _PLAIN.match(name) and name.upper() not in vocabulary.RESERVED:
        return name
    return '"' + name.replace('"', '""') + '"'


def _unquote(text: str) -> str:
    if text.startswith('"'):
        body = text[1:-1] if len(text) > 1 and text.endswith('"') else text[1:]
        return body.replace('""', '"')
    return text


def _case(word: str, prefix: str) -> str:
    """Keywords follow the user's case: lower case if they type lower case."""
    if prefix and prefix.isalpha() and prefix == prefix.lower():
        return word.lower()
    return word


def _match(prefix: str, candidates: Iterable[str]) -> list[str]:
    """Prefix matches first (in the given order), then names containing the prefix."""
    p = prefix.lower()
    seen: dict[str, None] = {}
    first, then = [], []
    for c in candidates:
        if c in seen:
            continue
        seen[c] = None
        low = c.lower()
        if low.startswith(p):
            first.append(c)
        elif len(p) >= 2 and p in low:
            then.append(c)
    return first + then


def statement_table(tokens: list[Token]) -> tuple[str | None, str | None]:
    """The table (and index) after the first FROM of a statement's tokens."""
    sig = significant(tokens)
    for i, t in enumerate(sig):
        if t.kind == "keyword" and t.upper == "FROM" and i + 1 < len(sig):
            name = sig[i + 1]
            if name.kind in ("word", "function", "identifier") or (
                name.kind == "keyword" and name.upper not in ("WHERE", "ORDER", "GROUP", "LIMIT")
            ):
                index = None
                if i + 3 < len(sig) and sig[i + 2].text == ".":
                    index = _unquote(sig[i + 3].text)
                return _unquote(name.text), index
    return None, None


def statement_sources(tokens: list[Token]) -> dict[str, str]:
    """Each source after FROM and JOIN, by the name its columns are qualified with (its alias,
    else its own name), mapped to the table or entity it reads."""
    sig = significant(tokens)
    found: dict[str, str] = {}
    for i, t in enumerate(sig[:-1]):
        if t.kind != "keyword" or t.upper not in ("FROM", "JOIN"):
            continue
        name = sig[i + 1]
        if name.kind not in ("word", "function", "identifier"):
            continue
        j = i + 2
        if j + 1 < len(sig) and sig[j].text == ".":
            j += 2  # table.index
        if j < len(sig) and sig[j].upper == "AS":
            j += 1
        alias = sig[j] if j < len(sig) and sig[j].kind in ("word", "identifier") else None
        found[_unquote((alias or name).text)] = _unquote(name.text)
    return found


def _clause(prev: list[Token]) -> str | None:
    """The clause the cursor is in: SELECT, FROM, WHERE, ORDER BY, GROUP BY, HAVING, LIMIT, ..."""
    for i in range(len(prev) - 1, -1, -1):
        t = prev[i]
        if t.kind != "keyword":
            continue
        word = t.upper
        if word == "BY" and i > 0 and prev[i - 1].upper in ("ORDER", "GROUP"):
            return prev[i - 1].upper + " BY"
        if word in ("SELECT", "FROM", "JOIN", "ON", "WHERE", "HAVING", "LIMIT", "SET", "SHOW"):
            return word
    return None


def _table_statement(words: list[str]) -> tuple[list[str], bool] | None:
    """Completion inside the table and file statements (CREATE/ALTER/DROP, SHOW CREATE TABLE,
    COPY): the keywords that may come next, and whether a table name may; None elsewhere."""
    first, last, n = words[0], words[-1], len(words)
    if first == "SHOW" and n >= 2 and words[1] == "CREATE":
        return (["TABLE", "ENTITY"], False) if n == 2 else ([], n == 3)
    if first == "SHOW" and n == 1:
        return SHOW_NEXT, False
    if first not in TABLE_STARTERS or (first == "COPY" and n >= 2 and words[1] == "("):
        return None  # COPY (SELECT …): completed as a SELECT
    if first in ("IMPORT", "EXPORT"):
        return _model_statement(words)
    if n == 1:
        nexts = {
            "CREATE": ["TABLE", "INDEX", "ENTITY"],
            "DROP": ["TABLE", "INDEX", "ENTITY"],
            "ALTER": ["TABLE"],
        }
        return nexts.get(first, []), first == "COPY"
    if words[1] == "ENTITY":  # CREATE ENTITY e ON table (…), DROP ENTITY e
        if first == "CREATE":
            return (["ON"], False) if n == 3 else ([], last == "ON")
        return ([], n == 2)
    if last == "ON" or (n == 2 and last == "TABLE" and first in ("DROP", "ALTER")):
        return [], True
    if first == "COPY" and n == 2:
        return ["TO", "FROM"], False
    if first == "COPY" and n >= 4 and words[2] in ("TO", "FROM"):
        return _copy_options(words), False
    if first == "ALTER" and n == 3:
        return ["SET"], False
    if first == "ALTER" and last == "SET":
        return ["BILLING", "TTL", "DELETION PROTECTION"], False
    if last == "BILLING":
        return ["PAY_PER_REQUEST", "PROVISIONED"], False
    if last == "PROJECTION":
        return list(vocabulary.PROJECTIONS), False
    if first == "CREATE" and n >= 3 and words[1] == "INDEX" and n == 3:
        return ["ON"], False
    if first == "DROP" and n == 3 and words[1] == "INDEX":
        return ["ON"], False
    return [], False


def _model_statement(words: list[str]) -> tuple[list[str], bool]:
    """IMPORT MODEL 'f'; EXPORT MODEL [t, …] TO 'f' [SAMPLE n]: tables until TO."""
    if len(words) == 1:
        return ["MODEL"], False
    if words[0] == "IMPORT" or len(words) < 2:
        return [], False
    if "TO" in words:
        at = words.index("TO")
        return (["SAMPLE"] if len(words) == at + 2 else []), False
    if words[-1] in ("MODEL", ","):
        return (["TO"] if words[-1] == "MODEL" else []), True
    return ["TO"], False


def _copy_options(words: list[str]) -> list[str]:
    """After ``COPY t TO|FROM 'file'``: its options not given yet, or after FORMAT the formats."""
    if words[-1] == "FORMAT":
        return list(vocabulary.COPY_FORMATS)
    if words[-1] in ("START", "AT", "SKIP"):
        return {"START": ["AT"], "AT": ["LINE", "ELEMENT"], "SKIP": ["BAD"]}[words[-1]]
    if words[-2] in ("FORMAT", "LINE", "ELEMENT") or words[-1] in ("BAD", words[3]):
        options = ["FORMAT"]
        if words[2] == "FROM":
            options += ["START AT LINE", "START AT ELEMENT", "SKIP BAD"]
        given = set(words[4:])
        return [o for o in options if o.split()[0] not in given]
    return []


@dataclass
class _Cursor:
    """Where the cursor stands in the statement being typed: what is being typed (`prefix`,
    inside double quotes when `quoted`, after ``parent.`` when a name is qualified), the
    significant tokens before it (`prev`), the word just before it, the statement's first word
    and the clause it is in; and the names `metadata` knows."""

    text: str
    after: str
    metadata: Metadata
    commands: dict[str, str]
    command_args: dict[str, str]
    prefix: str
    quoted: bool
    parent: str | None
    prev: list[Token]

    @property
    def width(self) -> int:
        return len(self.prefix) + (1 if self.quoted else 0)

    @property
    def word(self) -> str:
        p1 = self.prev[-1]
        return p1.upper if p1.kind in ("keyword", "function", "word") else p1.text

    @property
    def first(self) -> str:
        return self.prev[0].upper

    @property
    def said(self) -> list[str]:
        return [t.upper or t.text for t in self.prev]

    @property
    def clause(self) -> str | None:
        return _clause(self.prev)

    def out(self, names: Iterable[str], kind: str, meta: str = "", quote: bool = True) -> list[Any]:
        found = []
        for name in _match(self.prefix, names):
            insert = quote_name(name) if quote else name
            if self.quoted:
                insert = '"' + name.replace('"', '""') + '"'
            found.append(Suggestion(insert, kind, -self.width, meta))
        return found

    def keywords(self, words: Iterable[str]) -> list[Suggestion]:
        if self.quoted:
            return []
        return [
            Suggestion(_case(w, self.prefix), "keyword", -self.width, "keyword")
            for w in _match(self.prefix, words)
        ]

    def functions(self, names: Iterable[str]) -> list[Suggestion]:
        if self.quoted:
            return []
        return [
            Suggestion(
                _case(f, self.prefix) if f.isupper() else f, "function", -self.width, "function"
            )
            for f in _match(self.prefix, names)
        ]

    def tables(self) -> list[Suggestion]:
        return self.out(self.metadata.table_names(), "table", "table")

    @property
    def statement(self) -> list[Token]:
        """The whole statement's tokens, the text after the cursor included."""
        return tokenize(self.text + self.after.split(";", 1)[0])

    @property
    def sources(self) -> dict[str, str]:
        return statement_sources(self.statement)

    def attributes(self) -> list[Suggestion]:
        """A join's qualifiers (``o.``), then the statement's table's attributes (else any
        seen)."""
        sources = self.sources
        joined = [f"{a}." for a in sources] if len(sources) > 1 else []
        found = self.out(joined, "source", "source", quote=False)
        table, _index = statement_table(self.statement)
        if table is not None:
            return found + self.out(self.metadata.attributes(table), "attribute", "attribute")
        return found + self.out(self.metadata.cached_attributes(), "attribute", "attribute")


def _cursor(
    before: str, after: str, metadata: Metadata, commands: dict[str, str], args: dict[str, str]
) -> _Cursor | None:
    """The cursor's place, or None where nothing is offered (a string, a comment, a closed
    quoted name, a number or a parameter being typed)."""
    text = before[statement_start(before) :]
    tokens = tokenize(text)
    if tokens:
        last = tokens[-1]
        if last.kind == "comment" and (not last.closed or last.text.startswith("--")):
            return None
        if last.kind == "string":
            return None
    sig = significant(tokens)
    prefix, quoted, parent = "", False, None
    prev = sig
    if sig and tokens[-1] is sig[-1]:
        last = sig[-1]
        if last.kind in ("word", "keyword", "function", "command"):
            prefix, prev = last.text, sig[:-1]
        elif last.kind == "identifier":
            if last.closed:
                return None
            prefix, quoted, prev = last.text[1:].replace('""', '"'), True, sig[:-1]
        elif last.kind in ("number", "parameter") or (last.kind == "operator" and last.text == "*"):
            return None
    if len(prev) >= 2 and prev[-1].text == "." and prev[-2].kind in NAME_KINDS:
        parent, prev = _unquote(prev[-2].text), prev[:-2]
    return _Cursor(text, after, metadata, commands, args, prefix, quoted, parent, prev)


# --- the rules, in order: the first that applies says what to offer --------------------------

Offer = list[Suggestion] | None


def _command(c: _Cursor) -> Offer:
    """A backslash command, then its argument (by what the command takes)."""
    if c.prefix.startswith("\\") and not c.prev:
        found = _cmd_match(c.prefix, c.commands)
        return [Suggestion(name, "command", -c.width, text) for name, text in found]
    if not c.prev or c.prev[0].kind != "command":
        return None
    kind = c.command_args.get(c.prev[0].text)
    if len(c.prev) > 1 or kind is None:
        return []
    if kind == "table":
        return c.tables()
    if kind.startswith("setting:"):
        return c.out(SETTING_VALUES.get(kind.split(":", 1)[1], ()), "value", "", quote=False)
    return c.out(("on", "off"), "value", "", quote=False) if kind == "onoff" else []


def _qualified(c: _Cursor) -> Offer:
    """``table.`` after FROM or JOIN: its indexes; a source's alias (a join's ``o.``, or
    ``FROM drive d … d.``): that source's columns; a nested path: nothing (names in maps are
    unknown)."""
    if c.parent is None:
        return None
    if c.prev and c.prev[-1].upper in ("FROM", "JOIN"):
        info = c.metadata.table(c.parent)
        if info is None:
            return []
        kinds = {ix.name: f"{ix.kind.upper()} index" for ix in info.indexes}
        found = _match(c.prefix, kinds)
        return [Suggestion(quote_name(n), "index", -c.width, kinds[n]) for n in found]
    source = c.sources.get(c.parent)
    if source is None:
        return []
    return c.out(c.metadata.attributes(source), "attribute", f"column of {source}")


def _opening(c: _Cursor) -> Offer:
    return c.keywords(OPENINGS) if not c.prev else None


def _write(c: _Cursor) -> Offer:
    """INSERT/UPSERT/REPLACE, UPDATE, DELETE, BEGIN/COMMIT/…: `write_complete`'s."""
    write = complete_write(c.prev)
    if write is None:
        return None
    found: list[Suggestion] = c.tables() if write.tables else []
    if write.attributes:
        known = c.metadata.attributes(write.table) if write.table else []
        found += c.out(known or c.metadata.cached_attributes(), "attribute", "attribute")
    found += c.functions(write.functions) + c.keywords(write.keywords)
    return found + c.out(write.values, "keyword", "keyword", quote=False)


def _table_statement_words(c: _Cursor) -> Offer:
    """CREATE/ALTER/DROP, SHOW CREATE, COPY, IMPORT/EXPORT MODEL (after EXPLAIN too, which
    takes them; EXPLAIN ANALYZE does not): `_table_statement`'s keywords and table names."""
    said = c.said
    if said[:1] == ["EXPLAIN"]:
        said = [] if said[1:2] == ["ANALYZE"] else said[1:]
    found = _table_statement(said) if said else None
    if found is None:
        return None
    next_words, tables = found
    return (c.tables() if tables else []) + c.keywords(next_words)


def _table_name(c: _Cursor) -> Offer:
    """After FROM, DESCRIBE (TABLE): table names; nothing after DESCRIBE's table."""
    describing = c.first in ("DESCRIBE", "DESC")
    if describing and len(c.prev) >= 2 and c.word != "TABLE" and c.said[1] != "ENTITY":
        return []
    if not (
        c.word in ("FROM", "JOIN")
        or (describing and (len(c.prev) == 1 or (len(c.prev) == 2 and c.word == "TABLE")))
    ):
        return None
    return c.tables() + (c.keywords(["TABLE"]) if describing and len(c.prev) == 1 else [])


def _setting(c: _Cursor) -> Offer:
    """SET name = value: setting names, then the setting's words."""
    if c.first != "SET" or c.clause != "SET":
        return None
    if len(c.prev) == 1:
        return c.out(SETTINGS, "setting", "setting", quote=False)
    if c.word in ("=", "TO"):
        return c.out(SETTING_VALUES.get(c.prev[1].text.lower(), ()), "value", "", quote=False)
    return []


# after a word, the keywords that follow it (the vocabulary's, in the grammar's order)
AFTER: dict[tuple[str, str], tuple[str, ...]] = {
    ("SHOW", "SHOW"): tuple(SHOW_NEXT),
    **{  # SHOW HOT -> KEYS FROM, SHOW HOT KEYS -> FROM, …
        ("SHOW", word): tuple(
            dict.fromkeys(
                " ".join(rest.split()[i + 1 :])
                for rest in SHOW_NEXT
                for i, said in enumerate(rest.split()[:-1])
                if said == word
            )
        )
        for word in {w for rest in SHOW_NEXT for w in rest.split()[:-1]}
    },
    ("EXPLAIN", "EXPLAIN"): (*EXPLAINED, "ANALYZE"),
    ("EXPLAIN", "ANALYZE"): ANALYZED,
}


def _after(c: _Cursor) -> Offer:
    """SHOW …, EXPLAIN [ANALYZE] …: the words the grammar puts next (`AFTER`)."""
    if c.clause == "SHOW":
        return c.keywords(AFTER.get(("SHOW", c.word), ()))
    words = AFTER.get((c.first, c.word))
    return c.keywords(words) if c.first == "EXPLAIN" and words is not None else None


def _show_entities_from(c: _Cursor) -> Offer:
    """SHOW ENTITIES FROM t [SAMPLE n] [AS CREATE]."""
    said = c.said
    if said[:3] != ["SHOW", "ENTITIES", "FROM"] or len(said) < 4:
        return None
    rest = said[4:]
    if not rest:
        return c.keywords(["SAMPLE", "AS CREATE"])
    if rest[0] == "SAMPLE" and len(rest) == 2:
        return c.keywords(["AS CREATE"])
    return c.keywords(["CREATE"]) if rest[-1] == "AS" else []


# SHOW HOT KEYS FROM t[.ix]'s optional clauses, in the grammar's order
_HOT_KEYS_CLAUSES = ("BY", "WITH SIZES", "SAMPLE", "LIMIT")


def _show_hot_keys(c: _Cursor) -> Offer:
    """SHOW HOT KEYS FROM t[.ix] [BY expression] [WITH SIZES] [SAMPLE p PERCENT [REPEATABLE
    (s)]] [LIMIT n]: the clauses that may still follow, not a SELECT's (WHERE, GROUP BY)."""
    said = c.said
    if said[:4] != ["SHOW", "HOT", "KEYS", "FROM"] or len(said) < 5:
        return None
    rest = said[5:]
    if rest[:1] == ["."]:  # t.ix
        rest = rest[2:]
    if not rest:
        return c.keywords(_HOT_KEYS_CLAUSES)
    word = rest[-1]
    if word in ("SAMPLE", "LIMIT", "REPEATABLE") or rest[-2:] == ["REPEATABLE", "("]:
        return []  # a number comes next
    if word == "BY" or (word in ("(", ",") and "BY" in rest):
        return c.attributes()
    if word == "WITH":
        return c.keywords(["SIZES"])
    if len(rest) >= 2 and rest[-2] == "SAMPLE":
        return c.keywords(["PERCENT"])
    said_clauses = [i for i, w in enumerate(_HOT_KEYS_CLAUSES) if w.split()[0] in rest]
    after = _HOT_KEYS_CLAUSES[max(said_clauses, default=-1) + 1 :]
    return c.keywords((["REPEATABLE"] if word == "PERCENT" else []) + list(after))


def _cast_type(c: _Cursor) -> Offer:
    """CAST(x AS …): the types CAST converts to (the vocabulary's "cast" words)."""
    if c.word != "AS":
        return None
    depth = 0
    for token in reversed(c.prev[:-1]):
        depth += {")": 1, "(": -1}.get(token.text, 0)
        if depth < 0:  # the parenthesis this AS stands in: is CAST( its opening?
            i = c.prev.index(token)
            return c.keywords(vocabulary.CLAUSES["cast"]) if i and c.said[i - 1] == "CAST" else None
    return None


def _select_list(c: _Cursor) -> Offer:
    if c.clause != "SELECT":
        return None
    if c.word in ("SELECT", "DISTINCT", ",", "("):
        extra = ["DISTINCT"] if c.word == "SELECT" else []
        return c.attributes() + c.functions(AGGREGATES) + c.keywords(extra)
    return c.keywords(["FROM", "AS"])


def _join(c: _Cursor) -> Offer:
    """LEFT [OUTER] JOIN, INNER JOIN: the rest of the join's words; after its source: ON."""
    words = JOIN_NEXT.get(c.word)
    if words is not None:
        return c.keywords(words)
    return c.keywords(["ON"]) if c.clause == "JOIN" else None


def _condition(c: _Cursor) -> Offer:
    """WHERE, HAVING and a join's ON: names and functions to start a condition, then what
    follows one."""
    if c.clause not in ("WHERE", "HAVING", "ON"):
        return None
    word = c.word
    if word in ("WHERE", "HAVING", "ON", "AND", "OR", "NOT", "(", ","):
        funcs = AGGREGATES if c.clause == "HAVING" else CONDITION_FUNCTIONS
        return c.attributes() + c.functions(funcs) + c.keywords([] if word == "NOT" else ["NOT"])
    if word in COMPARISONS:
        return c.keywords(["TRUE", "FALSE", "NULL"]) if word in ("=", "<>", "!=") else []
    if word == "IS":
        return c.keywords(["NULL", "NOT NULL", "DISTINCT FROM", "NOT DISTINCT FROM"])
    return c.keywords(ON_NEXT if c.clause == "ON" else CONDITION_NEXT)


def _ordering(c: _Cursor) -> Offer:
    """ORDER BY, GROUP BY: names (and aggregates to order by), then what follows."""
    if c.clause not in ("ORDER BY", "GROUP BY"):
        return None
    if c.word in ("BY", ","):
        return c.attributes() + c.functions(AGGREGATES if c.clause == "ORDER BY" else ())
    return c.keywords(CLAUSE_NEXT[c.clause])


def _clause_next(c: _Cursor) -> Offer:
    """After FROM's table: the clauses that may follow; after LIMIT: nothing."""
    words = CLAUSE_NEXT.get(c.clause or "")
    return None if words is None else c.keywords(words)


def _anything(c: _Cursor) -> Offer:
    return c.keywords(sorted(vocabulary.KEYWORDS)) + c.functions(ALL_FUNCTIONS)


CONDITION_NEXT = ("AND", "OR", "BETWEEN", "IN", "LIKE", "IS", "GROUP BY", "ORDER BY", "LIMIT")
ON_NEXT = (*CONDITION_NEXT[:6], "JOIN", "LEFT JOIN", "WHERE", *CONDITION_NEXT[6:])
JOIN_NEXT: dict[str, tuple[str, ...]] = {
    "LEFT": ("OUTER JOIN", "JOIN"),
    "INNER": ("JOIN",),
    "OUTER": ("JOIN",),
}
CLAUSE_NEXT: dict[str, tuple[str, ...]] = {
    "FROM": ("WHERE", "JOIN", "LEFT JOIN", "GROUP BY", "ORDER BY", "LIMIT"),
    "ORDER BY": ("ASC", "DESC", "LIMIT"),
    "GROUP BY": ("HAVING", "ORDER BY", "LIMIT"),
    "LIMIT": (),
}
RULES: tuple[Callable[[_Cursor], Offer], ...] = (
    _command,
    _qualified,
    _opening,
    _write,
    _table_statement_words,
    _table_name,
    _setting,
    _after,
    _show_entities_from,
    _show_hot_keys,
    _cast_type,
    _select_list,
    _join,
    _condition,
    _ordering,
    _clause_next,
    _anything,
)


def suggest(
    before: str,
    after: str,
    metadata: Metadata,
    commands: dict[str, str] | None = None,
    command_args: dict[str, str] | None = None,
) -> list[Suggestion]:
    """What to offer at the cursor: the first of `RULES` that applies. `commands`: backslash
    command -> help; `command_args`: command -> what its argument is ("table", "format",
    "onoff")."""
    cursor = _cursor(before, after, metadata, commands or {}, command_args or {})
    if cursor is None:
        return []
    for rule in RULES:
        found = rule(cursor)
        if found is not None:
            return found
    return []


def _cmd_match(prefix: str, commands: dict[str, str]) -> list[tuple[str, str]]:
    return [(name, commands[name]) for name in _match(prefix, commands) if name.startswith(prefix)]


def _typing_name(before: str) -> bool:
    tail = before[-1:]
    return bool(tail) and (tail.isalnum() or tail in '_.\\"')


class SqlCompleter(Completer):
    """prompt_toolkit adapter over `suggest`; file names for ``\\i`` and ``\\o``."""

    def __init__(
        self,
        metadata: Metadata,
        commands: dict[str, str] | None = None,
        command_args: dict[str, str] | None = None,
    ):
        self.metadata = metadata
        self.commands = commands or {}
        self.command_args = command_args or {}
        self.paths = PathCompleter(expanduser=True)

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterator[Completion]:
        before = document.text_before_cursor
        head = before.lstrip()
        if head.startswith("\\"):
            name, _, arg = head.partition(" ")
            if self.command_args.get(name) == "path" and " " in head:
                sub = Document(arg.lstrip(), len(arg.lstrip()))
                yield from self.paths.get_completions(sub, complete_event)
                return
        if not complete_event.completion_requested and not _typing_name(before):
            return  # while typing, offer names only once a word (or `table.`) has begun
        for s in suggest(
            before, document.text_after_cursor, self.metadata, self.commands, self.command_args
        ):
            yield Completion(s.text, s.start, display_meta=s.meta or s.kind)
