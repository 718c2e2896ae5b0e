"""The statements about tables and files: CREATE/ALTER/DROP, SHOW CREATE TABLE and COPY.

sqlglot has no grammar for DynamoDB's keys, billing modes and index projections, so these
statements are read here by a small tokenizer and a recursive-descent reader; their grammar is
in ``grammar/README.md``. Every refusal names the line and column of the offending word.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from dynosql.errors import SqlError
from dynosql.sql import ast, keywords
from dynosql.sql.spelling import keyword_guess
from dynosql.sql.split import Chunk

_STATEMENTS = keywords.starters("table", "copy")
KEY_TYPES = keywords.TYPE_WORDS
_EXTENSIONS = {
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".csv": "csv",
    ".json": "json",
    ".parquet": "parquet",
}

_TOKEN = re.compile(
    r"""(?P<ws>\s+)
    |(?P<ident>"(?:[^"]|"")*")
    |(?P<string>'(?:[^']|'')*')
    |(?P<number>\d+)
    |(?P<word>[A-Za-z_][A-Za-z0-9_\-]*)
    |(?P<punct>[(),;])""",
    re.X,
)


def default_format(path: str, formats: tuple[str, ...]) -> str | None:
    """The format a file's name implies (``.jsonl``, ``.csv``, ``.json``, each maybe ``.gz``)."""
    name = path.lower()
    if name.endswith(".gz"):
        name = name[:-3]
    for extension, fmt in _EXTENSIONS.items():
        if name.endswith(extension) and fmt in formats:
            return fmt
    return None


class _Token:
    __slots__ = ("kind", "text", "at")

    def __init__(self, kind: str, text: str, at: int):
        self.kind, self.text, self.at = kind, text, at

    @property
    def upper(self) -> str:
        return self.text.upper() if self.kind == "word" else ""


class _Reader:
    TOKEN = _TOKEN  # a reader of other statements may read more kinds of token

    def __init__(self, chunk: Chunk, text: str, position: Callable[[int], ast.Pos]):
        self.chunk = chunk
        self.text = text
        self.position = position
        self.tokens: list[_Token] = []
        self.i = 0
        at = 0
        while at < len(text):
            m = self.TOKEN.match(text, at)
            if m is None:
                raise self.error(at, f"unexpected character {text[at]!r}")
            if m.lastgroup != "ws":
                self.tokens.append(_Token(m.lastgroup or "", m.group(), at))
            at = m.end()
        self.end = len(text.rstrip())

    # --- primitives ----------------------------------------------------------------------------

    def error(self, at: int, message: str) -> SqlError:
        pos = self.position(at)
        return SqlError(message, pos.line, pos.col)

    def peek(self, offset: int = 0) -> _Token | None:
        j = self.i + offset
        return self.tokens[j] if j < len(self.tokens) else None

    def here(self) -> int:
        token = self.peek()
        return token.at if token else self.end

    def fail(self, expected: str, words: tuple[str, ...] = ()) -> SqlError:
        """What was expected and what came; a word close to one of `words` (TABL for TABLE)
        is named as a misspelling of it instead."""
        token = self.peek()
        if token is not None and token.kind == "word" and token.upper not in words:
            guess = keyword_guess(token.text, words)
            if guess:
                return self.error(token.at, f"unknown word {token.text}: did you mean {guess}?")
        got = f"'{token.text}'" if token else "end of statement"
        return self.error(self.here(), f"expected {expected}, got {got}")

    def at_word(self, *words: str) -> bool:
        token = self.peek()
        return token is not None and token.upper in words

    def accept(self, *words: str) -> str | None:
        if self.at_word(*words):
            self.i += 1
            return self.tokens[self.i - 1].upper
        return None

    def expect(self, *words: str) -> str:
        word = self.accept(*words)
        if word is None:
            raise self.fail(" or ".join(words), words)
        return word

    def punct(self, char: str) -> bool:
        token = self.peek()
        if token is not None and token.kind == "punct" and token.text == char:
            self.i += 1
            return True
        return False

    def expect_punct(self, char: str) -> None:
        if not self.punct(char):
            raise self.fail(f"'{char}'")

    def name(self, what: str) -> str:
        token = self.peek()
        if token is None or token.kind not in ("word", "ident"):
            raise self.fail(what)
        self.i += 1
        if token.kind == "ident":
            return token.text[1:-1].replace('""', '"')
        return token.text

    def string(self, what: str) -> str:
        token = self.peek()
        if token is None or token.kind != "string":
            raise self.fail(f"{what} as a 'quoted string'")
        self.i += 1
        return token.text[1:-1].replace("''", "'")

    def whole(self, what: str) -> int:
        token = self.peek()
        if token is None or token.kind != "number":
            raise self.fail(what)
        self.i += 1
        return int(token.text)

    def done(self) -> None:
        self.punct(";")
        if self.peek() is not None:
            raise self.fail("the end of the statement")

    def names(self, what: str) -> tuple[str, ...]:
        self.expect_punct("(")
        found = [self.name(what)]
        while self.punct(","):
            found.append(self.name(what))
        self.expect_punct(")")
        return tuple(found)

    # --- pieces --------------------------------------------------------------------------------

    def key_type(self) -> str:
        token = self.peek()
        word = self.accept(*KEY_TYPES)
        if word is None or token is None:
            raise self.fail("a key type: S, N or B (STRING, NUMBER, BINARY)", tuple(KEY_TYPES))
        return KEY_TYPES[word]

    def throughput(self) -> ast.Throughput:
        self.expect_punct("(")
        rcu = self.whole("read capacity units")
        self.expect_punct(",")
        wcu = self.whole("write capacity units")
        self.expect_punct(")")
        if rcu < 1 or wcu < 1:
            raise self.error(self.tokens[self.i - 1].at, "provisioned capacity is at least 1")
        return ast.Throughput(rcu, wcu)

    def billing(self) -> ast.Throughput | str:
        word = self.expect(*keywords.BILLING_MODES)
        if word == "PROVISIONED":
            return self.throughput()
        return "PAY_PER_REQUEST"

    def projection(self) -> ast.Projection:
        if not self.accept("PROJECTION"):
            return ast.Projection()
        kind = self.expect(*keywords.PROJECTIONS)
        if kind == "INCLUDE":
            return ast.Projection(kind, self.names("an attribute name"))
        return ast.Projection(kind)

    def index_tail(self, kind: str, name: str, hash_: str, range_: str | None) -> ast.IndexDef:
        projection = self.projection()
        throughput = None
        if kind == "gsi" and self.accept("PROVISIONED"):
            throughput = self.throughput()
        return ast.IndexDef(kind, name, hash_, range_, projection, throughput)

    # --- statements ----------------------------------------------------------------------------

    def statement(self) -> ast.Statement:
        first = self.expect(*(s.word for s in _STATEMENTS), "SHOW")
        if first == "CREATE":
            what = self.expect("TABLE", "INDEX")
            return self.create_table() if what == "TABLE" else self.create_index()
        if first == "DROP":
            what = self.expect("TABLE", "INDEX")
            return self.drop_table() if what == "TABLE" else self.drop_index()
        if first == "ALTER":
            self.expect("TABLE")
            return self.alter_table()
        if first == "SHOW":
            self.expect("CREATE")
            self.expect("TABLE")
            pos = self.position(self.here())
            table = self.name("a table name")
            self.done()
            return ast.ShowCreateTable(table, pos)
        return self.copy()

    def create_table(self) -> ast.CreateTable:
        pos = self.position(self.here())
        table = self.name("a table name")
        self.expect_punct("(")
        attributes: dict[str, str] = {}
        key: tuple[str, ...] | None = None
        while True:
            following = self.peek(1)
            if self.at_word("PRIMARY") and not (
                following and following.kind == "word" and following.upper in KEY_TYPES
            ):
                at = self.here()
                self.expect("PRIMARY")
                self.expect("KEY")
                if key is not None:
                    raise self.error(at, "PRIMARY KEY given twice")
                key_at = self.here()
                key = self.names("a key attribute")
                if len(key) > 2:
                    raise self.error(
                        key_at, "a primary key has a partition key and at most one sort key"
                    )
            else:
                at = self.here()
                name = self.name("an attribute name and its type, or PRIMARY KEY (…)")
                if name in attributes:
                    raise self.error(at, f"attribute {name} is declared twice")
                attributes[name] = self.key_type()
            if not self.punct(","):
                break
        self.expect_punct(")")
        if key is None:
            raise self.error(pos_index(self), "CREATE TABLE needs PRIMARY KEY (partition [, sort])")
        throughput: ast.Throughput | None = None
        indexes: list[ast.IndexDef] = []
        ttl = None
        protection = False
        while self.peek() is not None and not self.at_end():
            if self.accept("BILLING"):
                billing = self.billing()
                throughput = billing if isinstance(billing, ast.Throughput) else None
            elif self.accept("WITH"):
                kind = self.expect("GSI", "LSI").lower()
                name = self.name("an index name")
                keys_at = self.here()
                keys = self.names("an index key attribute")
                if len(keys) > 2:
                    raise self.error(
                        keys_at, "an index key has a partition key and at most one sort key"
                    )
                if kind == "lsi" and len(keys) != 2:
                    raise self.error(
                        keys_at,
                        "an LSI names the table's partition key and its own sort key: (pk, sk)",
                    )
                indexes.append(
                    self.index_tail(kind, name, keys[0], keys[1] if len(keys) > 1 else None)
                )
            elif self.accept("TTL"):
                ttl = self.name("the TTL attribute name")
            elif self.accept("DELETION"):
                self.expect("PROTECTION")
                protection = True
            else:
                raise self.fail(
                    "BILLING, WITH GSI, WITH LSI, TTL or DELETION PROTECTION",
                    ("BILLING", "WITH", "TTL", "DELETION"),
                )
        self.done()
        return ast.CreateTable(
            table,
            tuple(attributes.items()),
            key[0],
            key[1] if len(key) > 1 else None,
            throughput,
            tuple(indexes),
            ttl,
            protection,
            pos,
        )

    def at_end(self) -> bool:
        token = self.peek()
        return token is not None and token.kind == "punct" and token.text == ";"

    def create_index(self) -> ast.CreateIndex:
        pos = self.position(self.here())
        name = self.name("an index name")
        self.expect("ON")
        table = self.name("a table name")
        self.expect_punct("(")
        keys: list[str] = []
        types: dict[str, str] = {}
        while True:
            key = self.name("an index key attribute")
            keys.append(key)
            if self.at_word(*KEY_TYPES):
                types[key] = self.key_type()
            if not self.punct(","):
                break
        self.expect_punct(")")
        if len(keys) > 2:
            raise self.error(
                pos_index(self), "an index key has a partition key and at most one sort key"
            )
        index = self.index_tail("gsi", name, keys[0], keys[1] if len(keys) > 1 else None)
        self.done()
        return ast.CreateIndex(table, index, tuple(types.items()), pos)

    def drop_index(self) -> ast.DropIndex:
        pos = self.position(self.here())
        name = self.name("an index name")
        self.expect("ON")
        table = self.name("a table name")
        self.done()
        return ast.DropIndex(table, name, pos)

    def drop_table(self) -> ast.DropTable:
        pos = self.position(self.here())
        table = self.name("a table name")
        self.done()
        return ast.DropTable(table, pos)

    def alter_table(self) -> ast.AlterTable | ast.SetPointInTimeRecovery:
        pos = self.position(self.here())
        table = self.name("a table name")
        self.expect("SET")
        what = self.expect("BILLING", "TTL", "DELETION", "POINT")
        result: ast.AlterTable | ast.SetPointInTimeRecovery
        if what == "POINT":
            self.expect("IN")
            self.expect("TIME")
            self.expect("RECOVERY")
            enabled = self.expect("ON", "OFF") == "ON"
            result = ast.SetPointInTimeRecovery(table, enabled, pos)
        elif what == "BILLING":
            result = ast.AlterTable(table, billing=self.billing(), pos=pos)
        elif what == "TTL":
            if self.accept("OFF"):
                result = ast.AlterTable(table, ttl_off=True, pos=pos)
            else:
                result = ast.AlterTable(
                    table, ttl=self.name("the TTL attribute name or OFF"), pos=pos
                )
        else:
            self.expect("PROTECTION")
            on = self.expect("ON", "OFF") == "ON"
            result = ast.AlterTable(table, deletion_protection=on, pos=pos)
        self.done()
        return result

    def copy(self) -> ast.Statement:
        pos = self.position(self.here())
        table = self.name("a table name or (SELECT …)")
        direction = self.expect("TO", "FROM")
        return self.copy_tail(table, None, direction, pos)

    def copy_tail(
        self, table: str | None, query: ast.Select | None, direction: str, pos: ast.Pos
    ) -> ast.Statement:
        path_at = self.here()
        path = self.string("a file name")
        formats = keywords.COPY_FORMATS
        fmt = default_format(path, formats)
        start_line, skip_bad, bad_path = 1, False, None
        unit, unit_at = "LINE", 0  # a JSON array resumes at an element, the others at a line
        while self.peek() is not None and not self.at_end():
            if self.accept("FORMAT"):
                at = self.here()
                word = self.name("a format").lower()
                if word not in formats:
                    raise self.error(at, f"COPY {direction} takes FORMAT {', '.join(formats)}")
                fmt = word
            elif direction == "FROM" and self.accept("START"):
                self.expect("AT")
                unit_at = self.here()
                unit = self.expect("LINE", "ELEMENT")
                start_line = self.whole(f"{'a line' if unit == 'LINE' else 'an element'} number")
                if start_line < 1:
                    raise self.error(
                        self.tokens[self.i - 1].at, f"{unit.lower()}s are counted from 1"
                    )
            elif direction == "FROM" and self.accept("SKIP"):
                self.expect("BAD")
                skip_bad = True
                token = self.peek()
                if token is not None and token.kind == "string":
                    bad_path = self.string("the side file for bad lines")
            else:
                more = "FORMAT" if direction == "TO" else "FORMAT, START AT LINE or SKIP BAD"
                raise self.fail(
                    more, ("FORMAT",) if direction == "TO" else ("FORMAT", "START", "SKIP")
                )
        self.done()
        if fmt is None:
            raise self.error(
                path_at,
                f"cannot tell the format from the file name: add FORMAT {' | '.join(formats)}",
            )
        if direction == "TO":
            return ast.CopyTo(path, fmt, table, query, pos)
        if unit_at and (unit == "ELEMENT") != (fmt == "json"):
            right = "START AT ELEMENT n" if fmt == "json" else "START AT LINE n"
            raise self.error(unit_at, f"COPY FROM a {fmt} file continues with {right}")
        assert table is not None
        return ast.CopyFrom(table, path, fmt, start_line, skip_bad, bad_path, pos)


def pos_index(reader: _Reader) -> int:
    """The index of the token just read (for messages about a whole clause)."""
    return reader.tokens[max(0, reader.i - 1)].at


def parse_table_or_copy(
    chunk: Chunk, code: str, position: Callable[[int], ast.Pos]
) -> ast.Statement:
    """A CREATE/ALTER/DROP/SHOW CREATE/COPY statement (`code`: the chunk with comments
    blanked; `position` maps an index in it to a script position)."""
    m = re.match(r"\s*COPY\s*\(", code, re.I)
    if m:
        return _copy_query(chunk, code, m.end() - 1, position)
    return _Reader(chunk, code, position).statement()


def _copy_query(
    chunk: Chunk,
    code: str,
    open_at: int,
    position: Callable[[int], ast.Pos],
) -> ast.Statement:
    """``COPY (SELECT …) TO 'file'``: the SELECT is parsed as any SELECT (positions kept by
    blanking, not cutting, the text around it)."""
    from dynosql.sql.select_parse import parse_select
    from dynosql.sql.split import code_only

    plain = code_only(code)
    depth = 0
    close_at = None
    for i in range(open_at, len(plain)):
        if plain[i] == "(":
            depth += 1
        elif plain[i] == ")":
            depth -= 1
            if depth == 0:
                close_at = i
                break
    if close_at is None:
        pos = position(open_at)
        raise SqlError("COPY ( SELECT … ) has no closing parenthesis", pos.line, pos.col)

    def blank(text: str) -> str:
        return "".join(c if c == "\n" else " " for c in text)

    inner = blank(chunk.text[: open_at + 1]) + chunk.text[open_at + 1 : close_at]
    query = parse_select(Chunk(inner, chunk.line, chunk.col))
    reader = _Reader(chunk, blank(code[: close_at + 1]) + code[close_at + 1 :], position)
    reader.expect("TO")
    return reader.copy_tail(None, query, "TO", position(_first_code(code)))


def _first_code(code: str) -> int:
    return len(code) - len(code.lstrip())


def explain(
    chunk: Chunk, match: re.Match[str], pos: Callable[[Chunk, str, int], ast.Pos]
) -> ast.Explain:
    """``EXPLAIN CREATE …`` (and ALTER, DROP): the requests, planned and not sent. `chunk` has
    the EXPLAIN words blanked out (positions kept)."""
    from dynosql.sql.split import strip_comments

    if match.group(1):
        raise SqlError(
            "EXPLAIN ANALYZE runs SELECTs only: a table statement would change the table",
            *_at(pos(chunk, chunk.text, match.end(1) - len("ANALYZE"))),
        )
    code = strip_comments(chunk.text)
    statement = parse_table_or_copy(chunk, code, lambda index: pos(chunk, code, index))
    return ast.Explain(statement)


def _at(position: ast.Pos) -> tuple[int, int]:
    return position.line, position.col
