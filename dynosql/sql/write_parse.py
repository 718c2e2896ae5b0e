"""INSERT / UPSERT / REPLACE / UPDATE / DELETE / BEGIN / COMMIT / ROLLBACK / UNDO → ast.

sqlglot parses INSERT, UPDATE and DELETE; UPSERT and REPLACE are read as INSERT (the leading
word is swapped for one of the same length, so positions stay right). DynamoDB's REMOVE has no
SQL spelling, so ``REMOVE a, b.c`` inside an UPDATE is cut out (blanked, positions kept) and its
paths parsed on their own. Values use the SELECT grammar's literals plus ``{'a', 'b'}`` (a set:
strings or numbers), ``[1, 'x']`` (a list) and ``{'k': 1}`` (a map); a :parameter may stand
for any value in them (``{:x, :y}``, a set of binary values too), which keeps the collection an
``ast.Collection`` until the statement is bound.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from dynosql import values
from dynosql.errors import SqlError
from dynosql.sql import ast, keywords
from dynosql.sql.convert import (
    DynoSQL,
    _Converter,
    _error,
    _first,
    _guessing_syntax_error,
    _path_text,
    _pos,
    _sql,
    _syntax_error,
    _unquote,
)
from dynosql.sql.fast_values import same_values, split_rows
from dynosql.sql.split import Chunk, code_only, strip_comments, unterminated_quote

_LEADING = keywords.leading(keywords.starters(*keywords.WRITE_FAMILIES))
_WORDS = keywords.words("write", "select") | frozenset(keywords.LITERALS)  # for "did you mean"
_UPDATE_FUNCTIONS = keywords.functions("update")
_PUTS = tuple(s.word for s in keywords.starters("put"))  # INSERT, UPSERT, REPLACE
_TRANSACTION = re.compile(
    r"\s*(BEGIN|START\s+TRANSACTION|COMMIT|ROLLBACK)(?:\s+(?:WORK|TRANSACTION))?\s*$", re.I
)
_UNDO = re.compile(
    r"\s*UNDO\s+(?:'((?:[^']|'')+)'|(LAST))((?:\s+FORCE\s+(?:TARGET|DAMAGED))*)\s*$", re.I
)
_REMOVE = re.compile(r",?\s*\bREMOVE\b", re.I)
_REMOVE_END = re.compile(r"\b(WHERE|RETURNING)\b", re.I)


def is_write(chunk_text: str) -> bool:
    """Whether the statement starts with a word this module parses."""
    return bool(_LEADING.match(strip_comments(chunk_text)))


def parse_explained_write(chunk: Chunk) -> ast.Statement:
    """The statement after EXPLAIN [ANALYZE] (blanked out of `chunk`): a write; BEGIN, COMMIT,
    ROLLBACK and UNDO are refused, one line, at their word (they plan no requests of their
    own)."""
    statement = parse_write(chunk)
    if isinstance(statement, ast.Transaction | ast.Undo):
        code = strip_comments(chunk.text)
        at = _first(code)
        word = " ".join(code[at:].split()[:2]).upper()
        word = word if word == "START TRANSACTION" else word.split()[0]
        why = (
            "EXPLAIN each statement inside BEGIN … COMMIT (a transaction sends nothing before "
            "COMMIT, then one TransactWriteItems)"
            if isinstance(statement, ast.Transaction)
            else "run it with dry_run on to see what it would restore"
        )
        raise _error(chunk, code, at, f"EXPLAIN cannot explain {word}: {why}")
    return statement


def parse_write(chunk: Chunk) -> ast.Statement:
    statement = _parse_write(chunk)
    if isinstance(statement, ast.Insert | ast.Update | ast.Delete):
        # the text as written goes into the undo journal's header
        return dataclasses.replace(statement, source=chunk.text.strip())
    return statement


def _parse_write(chunk: Chunk) -> ast.Statement:
    code = strip_comments(chunk.text)
    if m := _TRANSACTION.match(code):
        word = m.group(1).split()[0].upper()
        action = {"BEGIN": "begin", "START": "begin", "COMMIT": "commit"}.get(word, "rollback")
        return ast.Transaction(action, _pos(chunk, code, m.start(1)))
    if re.match(r"\s*UNDO\b", code, re.I):
        m = _UNDO.match(code)
        if not m:
            raise _error(
                chunk,
                code,
                _first(code),
                "UNDO takes a journal file name or LAST: UNDO 'file' | UNDO LAST "
                "[FORCE TARGET] [FORCE DAMAGED]",
            )
        forced = m.group(3).upper().split()
        at = m.start(1) if m.group(1) is not None else m.start(2)
        return ast.Undo(
            (m.group(1) or "").replace("''", "'"),
            _pos(chunk, code, at),
            last=m.group(2) is not None,
            force_target="TARGET" in forced,
            force_damaged="DAMAGED" in forced,
        )
    if _TRANSACTION.match(code.split(None, 1)[0] if code.split() else ""):
        raise _error(chunk, code, _first(code), "BEGIN, COMMIT and ROLLBACK take no arguments")
    opened = unterminated_quote(chunk.text)
    if opened is not None:
        what = "string" if chunk.text[opened] == "'" else "quoted name"
        raise _error(
            chunk, chunk.text, opened, f"unterminated {what}: no closing {chunk.text[opened]}"
        )
    text = chunk.text
    start = _first(code_only(text))
    word = code_only(text)[start:].split(None, 1)[0].upper()
    if word in ("UPSERT", "REPLACE"):
        text = text[:start] + "INSERT".ljust(len(word)) + text[start + len(word) :]
    if word in _PUTS:
        fast = _insert_fast(chunk, text, code, word)
        if fast is not None:
            return fast
    converter = _WriteConverter(Chunk(text, chunk.line, chunk.col), verb=word)
    removes: list[ast.Assignment] = []
    if word == "UPDATE":
        text, removes = converter.cut_removes(text)
        dummy_at = converter.dummy_at
        converter = _WriteConverter(Chunk(text, chunk.line, chunk.col), verb=word)
        converter.dummy_at = dummy_at
    try:
        trees = [t for t in sqlglot.parse(text, read=DynoSQL) if t is not None]
        if len(trees) != 1 or not isinstance(trees[0], exp.Expression):
            raise SqlError("expected one statement", chunk.line, chunk.col)
        return converter.statement(trees[0], removes)
    except (ParseError, TokenError) as err:
        raise _guessing_syntax_error(Chunk(text, chunk.line, chunk.col), err, _WORDS) from None
    except RecursionError:
        raise SqlError("the statement nests too deeply", chunk.line, chunk.col) from None


def _insert_fast(chunk: Chunk, text: str, code: str, verb: str) -> ast.Insert | None:
    """An INSERT/UPSERT with many rows of plain literals: sqlglot reads the statement through
    its first row, `fast_values` the other rows. None (parse it all with sqlglot) when the rows
    are not plain or row 1 does not read the same both ways."""
    split = split_rows(text, code, code_only(text), verb)
    if split is None:
        return None
    try:
        trees = [t for t in sqlglot.parse(split.text, read=DynoSQL) if t is not None]
        if len(trees) != 1 or not isinstance(trees[0], exp.Expression):
            return None
        statement = _WriteConverter(Chunk(split.text, chunk.line, chunk.col), verb).statement(
            trees[0], []
        )
    except (ParseError, TokenError, SqlError):
        return None
    if not isinstance(statement, ast.Insert) or len(statement.rows) != 1:
        return None
    first = statement.rows[0]
    if not all(isinstance(c, ast.Literal) for c in first) or not same_values(
        tuple(c.value for c in first), split.rows[0]
    ):
        return None
    rest = tuple(tuple(ast.Literal(v, ast.NOWHERE) for v in row) for row in split.rows[1:])
    return dataclasses.replace(statement, rows=(first, *rest))


def _image_star(e: exp.Expression) -> bool:
    """``old.*`` or ``new.*``."""
    return isinstance(e, exp.Column) and isinstance(e.this, exp.Star) and e.table in ("old", "new")


def _leading_identifier(e: exp.Expression) -> exp.Identifier | None:
    """The first name of a path expression (``old`` in ``old.m.x[0]``)."""
    while isinstance(e, exp.Dot | exp.Bracket | exp.Paren):
        e = e.this
    if isinstance(e, exp.Column):
        for part in ("catalog", "db", "table", "this"):
            found = e.args.get(part)
            if isinstance(found, exp.Identifier):
                return found
    return None


_DUMMY = "_"  # the placeholder assignment that stands for a cut-out REMOVE when there is no SET


class _WriteConverter(_Converter):
    item_measures = False  # ITEM_SIZE() needs whole items; a write reads the paths it names

    def __init__(self, chunk: Chunk, verb: str):
        super().__init__(chunk)
        self.verb = verb
        self.dummy_at: int | None = None

    # --- REMOVE ---------------------------------------------------------------------------------

    def cut_removes(self, text: str) -> tuple[str, list[ast.Assignment]]:
        """Blank ``[,] REMOVE p, q`` out of an UPDATE; parse the paths on their own."""
        code = code_only(text)
        m = _REMOVE.search(code)
        if not m:
            return text, []
        word = m.end() - len("REMOVE")
        end_m = _REMOVE_END.search(code, m.end())
        end = end_m.start() if end_m else len(code)
        # the paths alone, with SELECT in place of REMOVE (same length: positions stay right)
        only = "".join(c if c == "\n" else " " for c in text[:word])
        only += "SELECT" + text[word + 6 : end]
        only += "".join(c if c == "\n" else " " for c in text[end:])
        try:
            tree = sqlglot.parse_one(only, read=DynoSQL)
        except (ParseError, TokenError) as err:
            raise _syntax_error(Chunk(only, self.chunk.line, self.chunk.col), err) from None
        if not isinstance(tree, exp.Select) or tree.args.get("from_") or tree.args.get("from"):
            raise self.fail("REMOVE takes attribute paths: REMOVE a, b.c", at=self.at(word))
        removes = []
        for e in tree.expressions:
            if not isinstance(e, exp.Column | exp.Dot | exp.Bracket):
                raise self.fail("REMOVE takes attribute paths: REMOVE a, b.c", e)
            path = self.path(e)
            removes.append(ast.Assignment("remove", path, None, path.pos))
        blank = "".join(c if c == "\n" else " " for c in text[m.start() : end])
        has_set = re.search(r"\bSET\b", code[: m.start()], re.I)
        if not has_set:
            filler = f" SET {_DUMMY}=1"
            if len(blank) < len(filler):  # pragma: no cover - "REMOVE x" is long enough
                raise self.fail("REMOVE takes attribute paths: REMOVE a, b.c", at=self.at(word))
            blank = filler + blank[len(filler) :]
            self.dummy_at = m.start()
        return text[: m.start()] + blank + text[end:], removes

    # --- statements -----------------------------------------------------------------------------

    def statement(self, tree: exp.Expression, removes: list[ast.Assignment]) -> ast.Statement:
        start = self.at(_first(self.code))
        if isinstance(tree, exp.Insert):
            return self.insert(tree, start)
        if isinstance(tree, exp.Update):
            return self.update(tree, start, removes)
        if isinstance(tree, exp.Delete):
            return self.delete(tree, start)
        raise self.fail(f"cannot read this {self.verb} statement", at=start)

    def table_name(self, node: exp.Expression | None) -> tuple[str, ast.Pos]:
        if isinstance(node, exp.Schema):
            node = node.this
        if not isinstance(node, exp.Table) or not node.name:
            raise self.fail(f"{self.verb} takes a table name", node)
        if node.db or node.args.get("catalog"):
            raise self.fail(f"{self.verb} writes to a table, not an index", node)
        if node.args.get("alias"):
            raise self.fail("table aliases are not supported", node.args["alias"])
        return node.name, self.pos(node)

    def returning(self, tree: exp.Expression) -> ast.Returning | None:
        node = tree.args.get("returning")
        if node is None:
            return None
        items = node.expressions
        if len(items) == 1 and isinstance(items[0], exp.Star):
            return ast.Returning(old=False)
        if len(items) == 1 and _image_star(items[0]):
            return ast.Returning(old=items[0].table == "old")
        columns: list[ast.ReturnColumn] = []
        for e in items:
            alias = e.alias if isinstance(e, exp.Alias) else None
            e = e.this if isinstance(e, exp.Alias) else e
            if isinstance(e, exp.Star) or _image_star(e):
                raise self.fail("RETURNING takes *, old.* or a list of columns, not both", e)
            if not isinstance(e, exp.Column | exp.Dot | exp.Bracket):
                raise self.fail(
                    f"RETURNING takes *, old.* or attribute paths (old.p: before the write), "
                    f"not {_sql(e)}",
                    e,
                )
            path, old = self.path(e), False
            first = _leading_identifier(e)
            if (
                len(path.elements) > 1
                and isinstance(path.elements[1], str)
                and first is not None
                and not first.args.get("quoted")
                and first.name.lower() in ("old", "new")
            ):  # old.p / new.p name the image; "old".p is the attribute old
                old = first.name.lower() == "old"
                rest = list(path.elements[1:])
                path = ast.Path(tuple(rest), _path_text(rest), path.pos)
            column = ast.ReturnColumn(path, alias, old)
            if any(c.name == column.name for c in columns):
                raise self.fail(
                    f"two RETURNING columns are named {column.name}: give one an alias (AS …)", e
                )
            columns.append(column)
        return ast.Returning(columns=tuple(columns))

    def insert(self, tree: exp.Insert, start: ast.Pos) -> ast.Insert:
        verb = self.verb
        table, table_pos = self.table_name(tree.this)
        columns: tuple[str, ...] = ()
        if isinstance(tree.this, exp.Schema):
            columns = tuple(i.name for i in tree.this.expressions)
            for i, name in enumerate(columns):
                if name in columns[:i]:
                    raise self.fail(f"column {name} is named twice", tree.this.expressions[i])
        for flag in ("overwrite", "ignore", "partition", "by_name", "exists"):
            if tree.args.get(flag):
                raise self.fail(f"{verb} … {flag.upper()} is not supported", at=start)
        ignore = False
        conflict = tree.args.get("conflict")
        if conflict is not None:
            action = conflict.args.get("action")
            if (
                verb != "INSERT"
                or conflict.args.get("duplicate")
                or conflict.args.get("conflict_keys")
                or not isinstance(action, exp.Var)
                or action.name.upper() != "DO NOTHING"
            ):
                raise self.fail(
                    "only INSERT … ON CONFLICT DO NOTHING is supported (UPSERT overwrites)",
                    at=self.find(r"\bON\s+CONFLICT\b"),
                )
            ignore = True
        source = tree.expression
        rows: tuple[tuple[Any, ...], ...] = ()
        select = None
        if isinstance(source, exp.Values):
            out: list[tuple[Any, ...]] = []
            for row in source.expressions:
                cells = row.expressions if isinstance(row, exp.Tuple) else [row]
                if not columns and out and len(cells) != len(out[0]):
                    # no column list: the planner names the values by the table's key
                    raise self.fail(
                        f"{len(cells)} value{'s' if len(cells) != 1 else ''}, "
                        f"{len(out[0])} in the first row",
                        row,
                    )
                if columns and len(cells) != len(columns):
                    raise self.fail(f"{len(cells)} values for {len(columns)} columns", row)
                # no position per value: finding each one in the text is quadratic in the rows,
                # and a bad value is reported by its row number instead
                out.append(tuple(self.value_operand(c, locate=False) for c in cells))
            rows = tuple(out)
        elif isinstance(source, exp.Select):
            select = self.select(source)
            if select.is_aggregate or select.distinct:
                raise self.fail(f"{verb} … SELECT takes plain rows, not aggregates", source)
            if columns and select.items is None:
                # an item's attributes have no order: nothing to match the named columns with
                raise self.fail(
                    f"{verb} INTO {table} ({', '.join(columns)}) SELECT * has no order to match "
                    "the named columns: select one column per name, or drop the column list",
                    source,
                )
            if columns and select.items is not None and len(select.items) != len(columns):
                raise self.fail(
                    f"{len(select.items)} selected columns for {len(columns)} named columns "
                    "(they are matched by position)",
                    source,
                )
        else:
            raise self.fail(f"{verb} takes VALUES (…) or SELECT …", source or tree)
        return ast.Insert(
            table,
            columns,
            rows,
            replace=verb != "INSERT",
            ignore_existing=ignore,
            select=select,
            returning=self.returning(tree),
            verb=verb,
            pos=start,
            table_pos=table_pos,
        )

    def update(self, tree: exp.Update, start: ast.Pos, removes: list[ast.Assignment]) -> ast.Update:
        table, table_pos = self.table_name(tree.this)
        for arg in ("from_", "from", "joins", "order", "limit", "with_"):
            if tree.args.get(arg):
                raise self.fail(f"UPDATE … {arg.rstrip('_').upper()} is not supported", at=start)
        assignments = []
        for e in tree.expressions:
            if self.dummy_at is not None and isinstance(e, exp.EQ):
                left = e.this
                if isinstance(left, exp.Column) and left.name == _DUMMY and not left.table:
                    continue
            assignments.append(self.assignment(e))
        assignments.extend(removes)
        seen: dict[tuple[Any, ...], ast.Assignment] = {}
        for a in assignments:
            for other in seen.values():
                if _overlap(a.path.elements, other.path.elements):
                    raise SqlError(
                        f"{a.path.text} is changed twice (DynamoDB allows one change per path)",
                        a.path.pos.line,
                        a.path.pos.col,
                    )
            seen[a.path.elements] = a
        where = self.condition(tree.args["where"].this) if tree.args.get("where") else None
        return ast.Update(table, tuple(assignments), where, self.returning(tree), start, table_pos)

    def delete(self, tree: exp.Delete, start: ast.Pos) -> ast.Delete:
        table, table_pos = self.table_name(tree.this)
        for arg in ("using", "limit", "order", "with_", "tables"):
            if tree.args.get(arg):
                raise self.fail(f"DELETE … {arg.rstrip('_').upper()} is not supported", at=start)
        where = self.condition(tree.args["where"].this) if tree.args.get("where") else None
        return ast.Delete(table, where, self.returning(tree), start, table_pos)

    # --- assignments ----------------------------------------------------------------------------

    def assignment(self, e: exp.Expression) -> ast.Assignment:
        if not isinstance(e, exp.EQ):
            raise self.fail(f"{_sql(e)}: SET takes path = value", e)
        path = self.path(e.this)
        right = e.expression
        if isinstance(right, exp.Add | exp.Sub):
            op = "+" if isinstance(right, exp.Add) else "-"
            left = self.update_operand(right.this)
            other = self.update_operand(right.expression)
            set_literal = _set_value(other)
            if left == path and set_literal is not None:
                # tags = tags + {'x'} / tags - {'x'}: DynamoDB's ADD / DELETE on a set
                return ast.Assignment("add" if op == "+" else "delete", path, other, path.pos)
            if set_literal is not None or _set_value(left) is not None:
                raise self.fail(
                    f"sets change in place: {path.text} = {path.text} + {{…}} (or - {{…}})", e
                )
            return ast.Assignment(
                "set", path, ast.Arith(op, left, other, self.pos(right)), path.pos
            )
        value = self.update_operand(right)
        if isinstance(value, ast.Literal) and values.type_of(value.value) in ("SS", "NS", "BS"):
            if not value.value:
                raise self.fail("DynamoDB has no empty sets", right)
        return ast.Assignment("set", path, value, path.pos)

    def update_operand(self, e: exp.Expression) -> Any:
        if isinstance(e, exp.Paren):
            return self.update_operand(e.this)
        if isinstance(e, exp.Add | exp.Sub):
            raise self.fail("DynamoDB takes one + or - per SET: a = b + 1, not a = b + 1 + 2", e)
        if isinstance(e, exp.Anonymous) and e.name.lower() in _UPDATE_FUNCTIONS:
            args = e.expressions
            if len(args) != 2:
                raise self.fail(f"{e.name.lower()}() takes 2 arguments", e)
            if e.name.lower() == "if_not_exists":
                return ast.IfNotExists(self.path(args[0]), self.value_operand(args[1]), self.pos(e))
            return ast.ListAppend(
                self.update_operand(args[0]), self.update_operand(args[1]), self.pos(e)
            )
        if isinstance(e, exp.Column | exp.Dot | exp.Bracket) and not (
            isinstance(e, exp.Column) and isinstance(e.this, exp.Star)
        ):
            return self.path(e)
        return self.value_operand(e)

    # --- values ---------------------------------------------------------------------------------

    def value_operand(
        self, e: exp.Expression, locate: bool = True
    ) -> ast.Literal | ast.Param | ast.Collection:
        """A value as written; a list, map or set holding a :parameter stays a Collection
        until the statement is bound. `locate=False` (the rows of VALUES) keeps no
        positions: finding each value in the text is quadratic in the rows."""
        if isinstance(e, exp.Paren):
            return self.value_operand(e.this, locate)
        if isinstance(e, exp.Placeholder):
            if not e.name or e.name == "?":
                raise self.fail("parameters are named: :name", at=self.find(r"\?"))
            return ast.Param(e.name, self.pos(e) if locate else ast.NOWHERE)
        if isinstance(e, exp.Array | exp.Struct) and e.find(exp.Placeholder) is not None:
            return self.collection(e, locate)
        return ast.Literal(self.value(e), self.pos(e) if locate else ast.NOWHERE)

    def collection(self, e: exp.Array | exp.Struct, locate: bool) -> ast.Collection:
        """A list, map or set with a :parameter inside; its elements' types (a set's must be
        of one type) are checked when it is bound, by the rule a literal set follows. It is
        placed at its first element (sqlglot keeps no position on a bracket)."""
        items = e.expressions
        if isinstance(e, exp.Array):
            elements = tuple(self.value_operand(i, locate) for i in items)
            return ast.Collection("L", elements, pos=elements[0].pos)
        if all(isinstance(i, exp.PropertyEQ) for i in items):
            elements = tuple(self.value_operand(i.expression, locate) for i in items)
            keys = tuple(i.this.name for i in items)
            return ast.Collection("M", elements, keys, elements[0].pos)
        elements = tuple(self.value_operand(i, locate) for i in items)
        literals = [x.value for x in elements if isinstance(x, ast.Literal)]
        if any(isinstance(x, ast.Collection) for x in elements) or (
            literals and values.set_of(literals) is None
        ):  # refused now, as the same set of literals would be
            raise self.fail(values.SET_RULE, e)
        return ast.Collection("set", elements, pos=elements[0].pos)

    def value(self, e: exp.Expression) -> Any:
        if isinstance(e, exp.Paren):
            return self.value(e.this)
        if isinstance(e, exp.Literal):
            return e.this if e.is_string else self.number(e.this, e)
        if isinstance(e, exp.Neg) and isinstance(e.this, exp.Literal) and not e.this.is_string:
            return self.number(e.this.this, e, negative=True)
        if isinstance(e, exp.Boolean):
            return bool(e.this)
        if isinstance(e, exp.Null):
            return None
        if isinstance(e, exp.Array):
            return [self.value(v) for v in e.expressions]
        if isinstance(e, exp.Struct):
            items = e.expressions
            if items and all(isinstance(i, exp.PropertyEQ) for i in items):
                out: dict[str, Any] = {}
                for i in items:
                    out[i.this.name] = self.value(i.expression)
                return out
            if not items:
                return {}
            found = values.set_of(self.value(i) for i in items)
            if found is None:
                raise self.fail(values.SET_RULE, e)
            return found
        raise self.fail(
            f"{_sql(e)} is not a value: use a literal, a list [..], a map or set {{..}}", e
        )


def _set_value(operand: Any) -> Any:
    """The set `operand` is written as (a literal set, or a set holding parameters), else
    None."""
    if isinstance(operand, ast.Literal) and values.type_of(operand.value) in ("SS", "NS", "BS"):
        return operand.value
    if isinstance(operand, ast.Collection) and operand.kind == "set":
        return operand
    return None


def _overlap(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    n = min(len(a), len(b))
    return a[:n] == b[:n]


__all__ = ["is_write", "parse_explained_write", "parse_write", "_unquote"]
