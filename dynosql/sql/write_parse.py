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
from dynosql.sql import ast, keywords, partiql
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
)
from dynosql.sql.fast_values import same_values, split_rows
from dynosql.sql.split import Chunk, code_only, strip_comments, unquote, unterminated_quote

_LEADING = keywords.leading(keywords.starters(*keywords.WRITE_FAMILIES))
_WORDS = keywords.words("write", "select") | frozenset(keywords.LITERALS)  # for "did you mean"
_UPDATE_FUNCTIONS = keywords.functions("update")
_SET_FUNCTIONS = ("set_add", "set_delete")  # PartiQL's ADD and DELETE of set elements
_PUTS = tuple(s.word for s in keywords.starters("put"))  # INSERT, UPSERT, REPLACE
_TRANSACTION = re.compile(
    r"\s*(BEGIN|START\s+TRANSACTION|COMMIT|ROLLBACK)(?:\s+(?:WORK|TRANSACTION))?\s*$", re.I
)
_UNDO = re.compile(
    r"\s*UNDO\s+(?:'((?:[^']|'')+)'|(LAST))((?:\s+FORCE\s+(?:TARGET|DAMAGED))*)\s*$", re.I
)
_CLAUSE = re.compile(r"\b(SET|REMOVE)\b", re.I)  # an UPDATE's clauses, as often as written
_CLAUSES_END = re.compile(r"\b(WHERE|RETURNING)\b", re.I)


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
    text, returning = partiql.cut_returning(chunk.text)
    start = _first(code_only(text))
    word = code_only(text)[start:].split(None, 1)[0].upper()
    if word in ("UPSERT", "REPLACE"):
        text = text[:start] + "INSERT".ljust(len(word)) + text[start + len(word) :]
    if word in _PUTS:
        converter = _WriteConverter(Chunk(text, chunk.line, chunk.col), verb=word)
        value = partiql.value_at(strip_comments(text))
        if value is not None:  # PartiQL's INSERT INTO t VALUE {…}: one item
            return _returning(converter, converter.insert_value(text, *value), returning)
        fast = _insert_fast(chunk, text, strip_comments(text), word)
        if fast is not None:
            return _returning(converter, fast, returning)
    converter = _WriteConverter(Chunk(text, chunk.line, chunk.col), verb=word)
    removes: list[ast.Assignment] = []
    if word == "UPDATE":
        text, removes = converter.merge_clauses(text)
        dummy_at = converter.dummy_at
        converter = _WriteConverter(Chunk(text, chunk.line, chunk.col), verb=word)
        converter.dummy_at = dummy_at
    try:
        trees = [t for t in sqlglot.parse(text, read=DynoSQL) if t is not None]
        if len(trees) != 1 or not isinstance(trees[0], exp.Expression):
            raise SqlError("expected one statement", chunk.line, chunk.col)
        return _returning(converter, converter.statement(trees[0], removes), returning)
    except (ParseError, TokenError) as err:
        raise _guessing_syntax_error(Chunk(text, chunk.line, chunk.col), err, _WORDS) from None
    except RecursionError:
        raise SqlError("the statement nests too deeply", chunk.line, chunk.col) from None


def _returning(
    converter: _WriteConverter, statement: ast.Statement, cut: partiql.Returning | None
) -> ast.Statement:
    """`statement` with PartiQL's RETURNING ALL|MODIFIED OLD|NEW * (cut out of its text), as
    PartiQL allows it: DELETE takes ALL OLD * only (the item deleted), MODIFIED is UPDATE's
    (the attributes it changed); dynosql's INSERT takes ALL OLD * and ALL NEW * too."""
    if cut is None:
        return statement
    at = converter.at(cut.at)
    if isinstance(statement, ast.Delete) and cut.what != "ALL OLD *":
        raise converter.fail(
            f"DELETE … RETURNING takes ALL OLD * (the item deleted), not {cut.what}", at=at
        )
    if isinstance(statement, ast.Insert) and cut.returning.modified:
        raise converter.fail(
            f"RETURNING {cut.what} is UPDATE's (the attributes it changes): INSERT takes "
            "RETURNING ALL NEW * (or ALL OLD *)",
            at=at,
        )
    if not isinstance(statement, ast.Insert | ast.Update | ast.Delete):
        raise converter.fail(f"RETURNING {cut.what} belongs to a write", at=at)
    return dataclasses.replace(statement, returning=cut.returning)


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

    # --- SET and REMOVE clauses -------------------------------------------------------------------

    def merge_clauses(self, text: str) -> tuple[str, list[ast.Assignment]]:
        """An UPDATE's SET and REMOVE clauses as one SET list for sqlglot, and the REMOVE
        paths. PartiQL repeats a clause per change (``SET a = 1 SET b = 2 REMOVE c REMOVE d``)
        where SQL lists them (``SET a = 1, b = 2 REMOVE c, d``); both are read. Every REMOVE
        clause is cut out (blanked: positions stay right) and its paths parsed on their own;
        every SET after the first becomes a comma. (sqlglot alone keeps only the last of
        several SETs: the others were silently dropped.)"""
        code = code_only(text)
        end_m = _CLAUSES_END.search(code)
        end = end_m.start() if end_m else len(code)
        marks = [m for m in _CLAUSE.finditer(code, 0, end)]
        removes: list[ast.Assignment] = []
        out = text
        first_set = True
        first_remove: tuple[int, int] | None = None
        for i, m in enumerate(marks):
            stop = marks[i + 1].start() if i + 1 < len(marks) else end
            if m.group(1).upper() == "SET":
                if not first_set:
                    out = out[: m.start()] + ",  " + out[m.end() :]
                first_set = False
                continue
            start = m.start()
            back = code[:start].rstrip()
            if back.endswith(","):  # SET a = 1, REMOVE b
                start = len(back) - 1
            removes.extend(self._removed_paths(text, m.end() - len("REMOVE"), stop))
            out = out[:start] + partiql.blank(out[start:stop]) + out[stop:]
            if first_remove is None:
                first_remove = (start, stop)
        if removes and first_set:  # REMOVE alone: a placeholder SET, skipped in `update`
            assert first_remove is not None
            start, stop = first_remove
            filler = f" SET {_DUMMY}=1"
            if stop - start < len(filler):  # pragma: no cover - "REMOVE x" is long enough
                raise self.fail("REMOVE takes attribute paths: REMOVE a, b.c", at=self.at(start))
            out = out[:start] + filler + out[start + len(filler) :]
            self.dummy_at = start
        return out, removes

    def _removed_paths(self, text: str, word: int, end: int) -> list[ast.Assignment]:
        """The paths of the REMOVE clause at `word` (up to `end`), parsed on their own: the
        text with SELECT in place of REMOVE (same length) and everything else blanked."""
        only = (
            partiql.blank(text[:word]) + "SELECT" + text[word + 6 : end] + partiql.blank(text[end:])
        )
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
        return removes

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
        if not isinstance(node, exp.Table) or not node.name:  # DELETE SELECT: `this` is False
            at = node if isinstance(node, exp.Expression) else None
            raise self.fail(f"{self.verb} takes a table name", at)
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

    def insert_value(self, text: str, table_at: int, table_end: int, brace: int) -> ast.Insert:
        """PartiQL's ``INSERT INTO t VALUE {'k': v, …}``: one item, its map's keys the columns
        (the table name read before VALUE, the map read on its own: SELECT in place of the
        statement's first word, everything else blanked, positions kept)."""
        code = code_only(text)
        close = partiql.closing_brace(code, brace)
        if close is None:
            raise self.fail("VALUE takes one item: a map {'k': v, …}", at=self.at(brace))
        rest = code[close + 1 :]
        if rest.strip():
            more = rest.lstrip()
            raise self.fail(
                "INSERT … VALUE takes one item {…} (several: one INSERT each, or "
                f"VALUES (…), (…) with a column list), not {more.split()[0][:20]} after it",
                at=self.at(close + 1 + len(rest) - len(more)),
            )
        table = unquote(text[table_at:table_end])
        table_pos = self.at(table_at)
        first = _first(code)  # INSERT (UPSERT and REPLACE read as it): six letters
        only = partiql.blank(text[:first]) + "SELECT" + partiql.blank(text[first + 6 : brace])
        only += text[brace : close + 1] + partiql.blank(text[close + 1 :])
        try:
            tree = sqlglot.parse_one(only, read=DynoSQL)
        except (ParseError, TokenError) as err:
            raise _syntax_error(Chunk(only, self.chunk.line, self.chunk.col), err) from None
        item = tree.expressions[0] if isinstance(tree, exp.Select) and tree.expressions else None
        if not isinstance(item, exp.Struct) or not all(
            isinstance(i, exp.PropertyEQ) for i in item.expressions
        ):
            raise self.fail("VALUE takes one item: a map {'k': v, …}", at=self.at(brace))
        columns = tuple(i.this.name for i in item.expressions)
        for i, name in enumerate(columns):
            if name in columns[:i]:
                raise self.fail(f"the item names {name} twice", item.expressions[i])
        if not columns:
            raise self.fail(f"the item holds no attributes: {table} needs its key", at=table_pos)
        row = tuple(self.value_operand(i.expression) for i in item.expressions)
        return ast.Insert(
            table,
            columns,
            (row,),
            replace=self.verb != "INSERT",
            verb=self.verb,
            pos=self.at(first),
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
        where = self.where(tree)
        return ast.Update(table, tuple(assignments), where, self.returning(tree), start, table_pos)

    def delete(self, tree: exp.Delete, start: ast.Pos) -> ast.Delete:
        table, table_pos = self.table_name(tree.this)
        for arg in ("using", "limit", "order", "with_", "tables"):
            if tree.args.get(arg):
                raise self.fail(f"DELETE … {arg.rstrip('_').upper()} is not supported", at=start)
        where = self.where(tree)
        return ast.Delete(table, where, self.returning(tree), start, table_pos)

    # --- assignments ----------------------------------------------------------------------------

    def assignment(self, e: exp.Expression) -> ast.Assignment:
        if not isinstance(e, exp.EQ):
            raise self.fail(f"{_sql(e)}: SET takes path = value", e)
        path = self.path(e.this)
        right = e.expression
        if isinstance(right, exp.Anonymous) and right.name.lower() in _SET_FUNCTIONS:
            return self.set_change(path, right)
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

    def set_change(self, path: ast.Path, e: exp.Anonymous) -> ast.Assignment:
        """PartiQL's ``s = set_add(s, <<…>>)`` and ``s = set_delete(s, <<…>>)``: DynamoDB's
        ADD and DELETE of set elements (``s = s + {…}``, ``s = s - {…}``)."""
        name = e.name.lower()
        if len(e.expressions) != 2:
            raise self.fail(f"{name}() takes 2 arguments: {name}(path, <<…>>)", e)
        first, value = self.path(e.expressions[0]), self.value_operand(e.expressions[1])
        if first != path:
            raise self.fail(
                f"{name}() changes the set it is assigned to: {path.text} = "
                f"{name}({path.text}, <<…>>)",
                e,
            )
        if isinstance(value, ast.Literal | ast.Collection) and _set_value(value) is None:
            raise self.fail(f"{name}() takes a set second: {name}({path.text}, <<…>>)", e)
        action = "add" if name == "set_add" else "delete"
        return ast.Assignment(action, path, value, path.pos)

    def update_operand(self, e: exp.Expression) -> Any:
        if isinstance(e, exp.Paren):
            return self.update_operand(e.this)
        if isinstance(e, exp.Anonymous) and e.name.lower() in _SET_FUNCTIONS:
            raise self.fail(
                f"{e.name.lower()}() is a whole change: path = {e.name.lower()}(path, <<…>>)", e
            )
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


__all__ = ["is_write", "parse_explained_write", "parse_write"]
