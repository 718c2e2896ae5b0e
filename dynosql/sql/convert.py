"""The shared pieces of the SQL parsers: our sqlglot dialect, the sqlglot tree → ast
converter (`_Converter`) and the small position/error helpers.

The statement parsers (``parser`` for SELECT and the leading-word statements,
``write_parse``, ``table_and_copy_parse``) import from here; nothing here imports them, so the
dispatcher (``parser``) can import the statement parsers without a cycle.
"""

from __future__ import annotations

import bisect
import dataclasses
import logging
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect, NormalizationStrategy
from sqlglot.parser import Parser as _SqlglotParser
from sqlglot.tokens import TokenType

from dynosql import values
from dynosql.errors import SqlError
from dynosql.sql import ast, casts, distinct, keywords, like, limit
from dynosql.sql.repeated_operand import refuse_repeated_operand
from dynosql.sql.spelling import (
    function_guess,
    misspelt_keyword,
    misspelt_words,
    needed_words,
    unknown_words_message,
)
from dynosql.sql.split import Chunk, code_only, strip_comments
from dynosql.sql.text import expression_text, sql_text

# sqlglot logs a warning when it falls back to a generic Command; we never rely on that.
logging.getLogger("sqlglot").setLevel(logging.ERROR)


class DynoSQL(Dialect):
    """Our dialect: DynamoDB attribute names are case-sensitive; 'strings', "identifiers"."""

    NORMALIZATION_STRATEGY = NormalizationStrategy.CASE_SENSITIVE

    class Parser(_SqlglotParser):
        """sqlglot's parser, except that a ``?`` (PartiQL's positional parameter) keeps where it
        stands (sqlglot keeps no position on one): the converter numbers it by the ``?`` before
        it, so the n-th ``?`` of a statement is the parameter named ``n``."""

        PLACEHOLDER_PARSERS = {
            **_SqlglotParser.PLACEHOLDER_PARSERS,
            TokenType.PLACEHOLDER: lambda self: self._positional(),
        }

        def _positional(self) -> exp.Placeholder:
            node = self.expression(exp.Placeholder(this="?"))
            node.meta["start"] = self._prev.start
            return node


# IN on a key becomes one request per value (Query) or 100 keys per BatchGetItem; on other
# attributes, filters of 100 values each (DynamoDB's IN limit) OR-ed, or a client-side check
MAX_IN_VALUES = 1000
MAX_PATH_DEPTH = 32  # names and list indexes of one document path (DynamoDB's nesting limit)

CONDITION_FUNCTIONS = {f.name: f.arity for f in keywords.FUNCTIONS if f.kind == "condition"}
STATEMENTS = "a statement starts with " + keywords.listing(
    [s.lead for s in keywords.STARTERS]
)  # what the refusal of any other statement says
AGGREGATES = {exp.Count: "COUNT", exp.Sum: "SUM", exp.Avg: "AVG", exp.Min: "MIN", exp.Max: "MAX"}
COMPARISONS = {exp.EQ: "=", exp.NEQ: "<>", exp.LT: "<", exp.LTE: "<=", exp.GT: ">", exp.GTE: ">="}
# sqlglot's scalar nodes -> our function names (dynosql/evaluate/scalar.py), their
# arguments by sqlglot's argument names, and how users spell them (errors name theirs)
_SCALAR_NODES: dict[type[exp.Expression], str] = {
    exp.Add: "+",
    exp.Sub: "-",
    exp.Mul: "*",
    exp.Div: "/",
    exp.Mod: "%",
    exp.Neg: "NEG",
    exp.DPipe: "||",
    exp.Concat: "CONCAT",
    exp.Round: "ROUND",
    exp.Floor: "FLOOR",
    exp.Ceil: "CEIL",
    exp.Abs: "ABS",
    exp.Substring: "SUBSTR",
    exp.Length: "LENGTH",
    exp.Lower: "LOWER",
    exp.Upper: "UPPER",
    exp.Trim: "TRIM",
    exp.Replace: "REPLACE",
    exp.SplitPart: "SPLIT_PART",
    exp.StartsWith: "STARTS_WITH",
    exp.Coalesce: "COALESCE",
    exp.Nullif: "NULLIF",
    exp.DateTrunc: "DATE_TRUNC",
}
_SCALAR_ARGS = {
    "NEG": ("this",),
    "ROUND": ("this", "decimals"),
    "FLOOR": ("this",),
    "CEIL": ("this",),
    "ABS": ("this",),
    "SUBSTR": ("this", "start", "length"),
    "LENGTH": ("this",),
    "LOWER": ("this",),
    "UPPER": ("this",),
    "TRIM": ("this",),
    "REPLACE": ("this", "expression", "replacement"),
    "SPLIT_PART": ("this", "delimiter", "part_index"),
    "DATE_TRUNC": ("unit", "this"),
}
_OPTIONAL_LAST = ("ROUND", "SUBSTR")
_MIN_ARGS = {"SUBSTR": 2}
_ANONYMOUS = {"FROM_UNIXTIME": 1, "TO_UNIXTIME": 1, "NOW": 0}
_ARITY = {
    "+": "takes 2 operands",
    "-": "takes 2 operands",
    "*": "takes 2 operands",
    "/": "takes 2 operands",
    "%": "takes 2 operands",
    "NEG": "takes 1 operand",
    "||": "takes 2 operands",
    "ROUND": "takes 1 or 2 arguments: ROUND(x[, places])",
    "FLOOR": "takes 1 argument",
    "CEIL": "takes 1 argument",
    "ABS": "takes 1 argument",
    "SUBSTR": "takes 2 or 3 arguments: SUBSTR(s, start[, length])",
    "LENGTH": "takes 1 argument",
    "LOWER": "takes 1 argument",
    "UPPER": "takes 1 argument",
    "TRIM": "takes 1 argument",
    "REPLACE": "takes 3 arguments: REPLACE(s, from, to)",
    "SPLIT_PART": "takes 3 arguments: SPLIT_PART(s, separator, n)",
    "STARTS_WITH": "takes 2 arguments",
    "NULLIF": "takes 2 arguments",
    "DATE_TRUNC": "takes 2 arguments: DATE_TRUNC('day', ts)",
    "FROM_UNIXTIME": "takes 1 argument (epoch seconds)",
    "TO_UNIXTIME": "takes 1 argument (an ISO-8601 string)",
    "NOW": "takes no arguments",
}
_SPELLINGS = {
    "SUBSTR": ("SUBSTRING", "SUBSTR"),
    "LENGTH": ("CHARACTER_LENGTH", "CHAR_LENGTH", "LENGTH", "LEN"),
    "CEIL": ("CEILING", "CEIL"),
    "COALESCE": ("COALESCE", "IFNULL", "NVL"),
}
_FROM = r"\bFROM\b"
_TRUNC_UNITS = ("month", "day", "hour", "minute", "year", "second")
_UNSUPPORTED_CLAUSES = {
    "with_": "WITH (common table expressions) is not supported",
    "offset": "OFFSET is not supported: DynamoDB pages by key, not by position",
    "windows": "WINDOW is not supported",
    "laterals": "LATERAL is not supported",
    "qualify": "QUALIFY is not supported",
    "into": "SELECT INTO is not supported: dynosql only reads",
}
_NOT_SELECT = {
    exp.Union: "UNION is not supported",
    exp.Intersect: "INTERSECT is not supported",
    exp.Except: "EXCEPT is not supported",
    exp.Insert: "INSERT is not supported: dynosql only reads",
    exp.Update: "UPDATE is not supported: dynosql only reads",
    exp.Delete: "DELETE is not supported: dynosql only reads",
    exp.Create: "CREATE is not supported: dynosql only reads",
    exp.Drop: "DROP is not supported: dynosql only reads",
}


def check_percent(text: str, pos: ast.Pos) -> Decimal:
    try:
        p: Decimal | None = values.literal_number(text)
    except ValueError:
        p = None
    if p is None or not 0 < p <= 100:
        raise SqlError(
            f"a sample takes a percentage above 0 and at most 100, got {text}", pos.line, pos.col
        )
    return p


def check_seed(text: str | None, pos: ast.Pos) -> int | None:
    if text is None:
        return None
    if not text.isdigit() or int(text) >= 2**63:
        raise SqlError(f"REPEATABLE takes a whole number (the seed), got {text}", pos.line, pos.col)
    return int(text)


def _first(code: str) -> int:
    return len(code) - len(code.lstrip())


def _pos(chunk: Chunk, text: str, index: int) -> ast.Pos:
    line = text.count("\n", 0, index) + 1
    col = index - (text.rfind("\n", 0, index) + 1) + 1
    return ast.Pos(*chunk.to_script(line, col))


def _error(chunk: Chunk, text: str, index: int, message: str) -> SqlError:
    pos = _pos(chunk, text, index)
    return SqlError(message, pos.line, pos.col)


# --- SELECT ------------------------------------------------------------------------------------


def _syntax_error(chunk: Chunk, err: Exception) -> SqlError:
    details = getattr(err, "errors", None) or []
    if details:
        d = details[0]
        highlight = d.get("highlight") or ""
        line, col = d.get("line") or 1, d.get("col") or 1
        col = max(1, col - len(highlight) + 1)  # sqlglot points at the token's last character
        description = d.get("description") or "syntax error"
        message = _describe(description, highlight)
        return SqlError(message, *chunk.to_script(line, col))
    text = str(err).splitlines()[0]
    m = re.search(r"[Ll]ine (\d+), [Cc]ol(?:umn)?:? (\d+)", text)
    if m:
        return SqlError(
            "cannot read this text as SQL: " + text.split(".")[0],
            *chunk.to_script(int(m.group(1)), int(m.group(2))),
        )
    return SqlError("cannot read this text as SQL: " + text, chunk.line, chunk.col)


def _guessing_syntax_error(chunk: Chunk, err: Exception, words: frozenset[str]) -> SqlError:
    """A syntax error; when a misspelt keyword (SELEC, FORM, LIMT, SETT) caused it, pointing at
    that word with the keyword among `words` (the statement's vocabulary) it resembles."""
    error = _syntax_error(chunk, err)
    code = code_only(chunk.text)
    lines = code.split("\n")
    line, col = (error.line or 1) - chunk.line + 1, error.col or 1
    if line == 1:
        col -= chunk.col - 1
    offset = sum(len(x) + 1 for x in lines[: max(0, line - 1)]) + max(0, col - 1)
    found = misspelt_keyword(code, min(offset + 1, len(code)), words)
    if found is None:
        return error
    # the others too, where sure: one error names them all
    every = needed_words(code, misspelt_words(code, words), sqlglot_parses)
    if found not in every:
        every = [found]
    return _error(chunk, chunk.text, every[0][0], unknown_words_message(every))


def sqlglot_parses(text: str) -> bool:
    """Whether `text` is one statement sqlglot reads in our dialect (syntax only)."""
    try:
        return len([t for t in sqlglot.parse(text, read=DynoSQL) if t is not None]) == 1
    except Exception:  # noqa: BLE001 - any failure to read is a no
        return False


def _describe(description: str, highlight: str) -> str:
    description = re.sub(r"\s*but got <Token[^>]*>", "", description)
    near = f" near '{highlight}'" if highlight else ""
    if description.startswith("Expecting "):
        return f"expected {description[len('Expecting ') :]}{near}"
    if description.startswith("Required keyword"):
        return f"incomplete expression{near}"
    if "Invalid expression / Unexpected token" in description:
        return f"unexpected{near or ' end of statement'}"
    return f"{description[:1].lower()}{description[1:]}{near}"


class _Converter:
    """sqlglot tree → ast, refusing what we do not support, with positions."""

    # ITEM_SIZE() and its kin size the whole items a SELECT reads; a write's WHERE is checked on
    # the attributes it names (dynosql/plan/write.py), so the write parser turns them away
    item_measures = True

    def __init__(self, chunk: Chunk):
        self.chunk = chunk
        self.code = code_only(chunk.text)
        self._aggregate_at = 0  # where the next aggregate's written name is looked for
        self._question_marks: list[int] | None = None  # where each ? of the code stands

    # positions
    def pos(self, node: exp.Expression | None) -> ast.Pos:
        """Where a node starts: its first identifier or literal (sqlglot keeps positions on
        those), so `'a' || 'b'` or `1 + 2` is pointed at where the user wrote it."""
        best = None
        found = node.find_all(exp.Identifier, exp.Literal) if node is not None else []
        for candidate in [node, *found]:
            meta = getattr(candidate, "meta", None) or {}
            if "start" in meta and (best is None or meta["start"] < best):
                best = meta["start"]
        if best is not None:
            return self.at(self._leading_keyword(node, best))
        if isinstance(node, exp.Placeholder):
            return self.find(rf":{re.escape(node.name)}\b")
        if node is not None:
            # no identifier inside (literals only): look for its text after WHERE
            text = _sql(node).split()[0] if _sql(node).split() else ""
            if text:
                return self.find(re.escape(text), after=r"\bWHERE\b")
        return self.at(_first(self.code))

    def _leading_keyword(self, node: exp.Expression | None, start: int) -> int:
        """A construct led by a keyword (`INTERVAL '1' DAY`) starts at the keyword, just
        before its first literal."""
        end = start
        while end > 0 and self.code[end - 1].isspace():
            end -= 1
        begin = end
        while begin > 0 and (self.code[begin - 1].isalnum() or self.code[begin - 1] == "_"):
            begin -= 1
        if node is None or begin == end or self.code[begin:end].upper() in _NEVER_LEADS:
            return start  # nothing to render: a 1,000-term OR stays linear
        words = _sql(node).split()
        if words and words[0].isalpha() and words[0].lower() == self.code[begin:end].lower():
            return begin
        return start

    def at(self, index: int) -> ast.Pos:
        return _pos(self.chunk, self.chunk.text, index)

    def find(self, pattern: str, nth: int = 1, after: str | None = None) -> ast.Pos:
        """The position of the nth match of a keyword pattern in the code (not in strings)."""
        start = 0
        if after:
            m = re.search(after, self.code, re.I)
            start = m.end() if m else 0
        matches = list(re.finditer(pattern, self.code[start:], re.I))
        if len(matches) >= nth:
            return self.at(start + matches[nth - 1].start())
        return self.at(_first(self.code))

    def fail(
        self, message: str, node: exp.Expression | None = None, at: ast.Pos | None = None
    ) -> SqlError:
        p = at or self.pos(node)
        return SqlError(message, p.line, p.col)

    # statement
    def select(self, tree: exp.Expression) -> ast.Select:
        start = self.at(_first(self.code))
        for kind, message in _NOT_SELECT.items():
            if isinstance(tree, kind):
                if kind in (exp.Union, exp.Intersect, exp.Except):
                    raise self.fail(message, at=self.find(r"\b(UNION|INTERSECT|EXCEPT)\b"))
                raise self.fail(message, at=start)
        if isinstance(tree, exp.Describe):
            raise self.fail("DESCRIBE takes a table name", tree)
        if not isinstance(tree, exp.Select):
            word = (
                self.code[_first(self.code) :].split(None, 1)[0].upper()
                if self.code.strip()
                else "this"
            )
            if word == "TRUNCATE":
                raise self.fail(f"{word} is not supported: dynosql only reads", at=start)
            raise self.fail(f"{word} is not supported: {STATEMENTS}", at=start)
        if tree.args.get("with_") or tree.args.get("with"):
            raise self.fail(_UNSUPPORTED_CLAUSES["with_"], at=start)
        if tree.args.get("offset"):
            raise self.fail(_UNSUPPORTED_CLAUSES["offset"], at=self.find(r"\bOFFSET\b"))
        for arg, message in _UNSUPPORTED_CLAUSES.items():
            if tree.args.get(arg):
                raise self.fail(message, tree.args[arg])
        for _sub in tree.find_all(exp.Exists):
            raise self.fail("subqueries are not supported", at=self.find(r"\bEXISTS\b"))
        for sub in tree.find_all(exp.Subquery, exp.Select):
            if sub is not tree:
                raise self.fail("subqueries are not supported", at=self.find(r"\bSELECT\b", nth=2))
        for _window in tree.find_all(exp.Window):
            raise self.fail("window functions are not supported", at=self.find(r"\bOVER\b"))

        empty = re.search(r",\s*(?=,|\bFROM\b)", self.code, re.I)
        if empty:
            raise self.fail("expected a column between the commas", at=self.at(empty.start()))
        table, index, table_pos, alias = self.from_(tree)
        joins = self.joins(tree, table, alias or table)
        sample = self.sample(tree)
        if sample is not None and joins:
            raise self.fail(
                "TABLESAMPLE samples one table's Scan: it is not supported in a join",
                at=sample.pos,
            )
        items = self.select_list(tree.expressions, joined=bool(joins), sources=(table, alias))
        where = self.where(tree)
        group_by = tuple(
            self.group_item(g, items)
            for g in (tree.args["group"].expressions if tree.args.get("group") else [])
        )
        aliases = {i.alias: i for i in items or () if i.alias}
        having = None
        if tree.args.get("having"):
            having = self.condition(
                tree.args["having"].this, aliases=aliases, allow_aggregates=True
            )
        ordered = tree.args["order"].expressions if tree.args.get("order") else []
        nulls = self.nulls_placement(len(ordered))
        order_by = tuple(
            dataclasses.replace(self.order_item(o, items, aliases), nulls=n)
            for o, n in zip(ordered, nulls, strict=True)
        )
        limit = self.limit(tree.args.get("limit"))
        distinct = tree.args.get("distinct")
        if distinct is not None and distinct.args.get("on"):
            raise self.fail("DISTINCT ON is not supported", distinct)
        statement = ast.Select(
            table=table,
            index=index,
            items=items,
            where=where,
            distinct=distinct is not None,
            group_by=group_by,
            having=having,
            order_by=order_by,
            limit=limit,
            pos=ast.Pos(self.chunk.line, self.chunk.col),
            table_pos=table_pos,
            alias=alias,
            sample=sample,
            joins=joins,
        )
        self.check_grouping(statement, tree)
        return statement

    def from_(self, tree: exp.Select) -> tuple[str, str | None, ast.Pos, str | None]:
        source = tree.args.get("from_") or tree.args.get("from")
        if source is None:
            raise self.fail("expected FROM table", tree)
        return self.source(source.this)

    def source(
        self, node: exp.Expression, what: str = "FROM"
    ) -> tuple[str, str | None, ast.Pos, str | None]:
        """A source's table (or entity), index, position and alias: ``t``, ``t.i``, ``t AS a``."""
        if not isinstance(node, exp.Table):
            raise self.fail(f"{what} takes a table name (or table.index)", node)
        if node.args.get("catalog"):
            raise self.fail(f"{what} takes table or table.index, not three names", node)
        alias = node.args.get("alias")
        if alias is not None and (alias.args.get("columns") or not alias.name):
            raise self.fail("a table alias is one name: FROM t AS a", alias)
        alias_name = alias.name if alias is not None else None
        if not isinstance(node.this, exp.Identifier) or not node.name:
            raise self.fail(f"{what} takes a table name (or table.index)", node)
        if node.db:
            return node.db, node.name, self.pos(node), alias_name
        return node.name, None, self.pos(node), alias_name

    def joins(self, tree: exp.Select, first: str, first_alias: str) -> tuple[ast.Join, ...]:
        """``[INNER | LEFT [OUTER]] JOIN source ON condition``, each in turn; every other form
        of join is refused at its keyword, saying what to write instead."""
        nodes = tree.args.get("joins") or []
        joiners = self._joiners(len(nodes))
        named = {first_alias}
        out: list[ast.Join] = []
        for node, (start, joiner) in zip(nodes, joiners, strict=True):
            at = self.at(start)
            words = joiner.upper().split()
            name = node.this.name if isinstance(node.this, exp.Table) else "b"
            refused = _join_refusal(words, first, name)
            if refused is not None:
                raise self.fail(refused, at=at)
            if not isinstance(node.this, exp.Table):
                raise self.fail("JOIN takes a table or entity name (or table.index)", at=at)
            if node.this.args.get("sample") is not None:
                raise self.fail(
                    "TABLESAMPLE samples one table's Scan: it is not supported in a join",
                    at=self.find(r"\bTABLESAMPLE\b"),
                )
            table, index, table_pos, alias = self.source(node.this, "JOIN")
            if (alias or table) in named:  # a table joined to itself: one side needs an alias
                raise self.fail(
                    f"two sources are named {alias or table}: give this one an alias of its own "
                    f"(JOIN {table} AS {(alias or table)[:1]}2 …)",
                    at=table_pos,
                )
            named.add(alias or table)
            if node.args.get("using"):
                raise self.fail(
                    f"JOIN … USING is not supported: write ON {alias or table}.c = {first_alias}.c",
                    at=at,
                )
            on = node.args.get("on")
            if on is None:
                shown = alias or table
                raise self.fail(
                    f"JOIN {table} needs ON: JOIN {table} ON {shown}.… = {first_alias}.… (the "
                    "columns that join them)",
                    at=at,
                )
            condition = self.condition(on)
            refuse_repeated_operand(condition)
            out.append(ast.Join(table, index, alias, condition, "LEFT" in words, at, table_pos))
        return tuple(out)

    def _joiners(self, count: int) -> list[tuple[int, str]]:
        """Where each join starts and the text that introduces it, in order: a JOIN phrase
        (``LEFT OUTER JOIN``) or a comma between sources, at the top level after FROM
        (subqueries are refused before)."""
        start = re.search(r"\bFROM\b", self.code, re.I)
        at = start.end() if start else 0
        found: list[tuple[int, str]] = []
        depth = 0
        for m in _JOINER.finditer(self.code, at):
            if m.group() in "()":
                depth += 1 if m.group() == "(" else -1
            elif depth == 0 and len(found) < count:
                found.append((m.start(), m.group()))
        found += [(at, "JOIN")] * (count - len(found))  # not in the text: never expected
        return found

    def sample(self, tree: exp.Select) -> ast.Sample | None:
        """TABLESAMPLE: only ``(p PERCENT)`` [``REPEATABLE (seed)``], read as a seeded sample
        of Scan segments. Anything else is refused; nothing is ever silently dropped."""
        source = tree.args.get("from_") or tree.args.get("from")
        node = source.this.args.get("sample") if source is not None else None
        if node is None:
            return None
        at = self.find(r"\bTABLESAMPLE\b")
        method = node.args.get("method")
        if method is not None and method.name.upper() != "SYSTEM":
            raise self.fail(
                f"TABLESAMPLE {method.name.upper()} is not supported: dynosql samples whole Scan "
                "segments (SYSTEM); an item-level sample would read every item",
                at=at,
            )
        percent = node.args.get("percent")
        if percent is None:
            raise self.fail(
                "TABLESAMPLE takes a percentage: TABLESAMPLE (10 PERCENT) (rows and buckets are "
                "not supported)",
                at=at,
            )
        if not (isinstance(percent, exp.Literal) and not percent.is_string):
            raise self.fail("TABLESAMPLE takes a number: TABLESAMPLE (10 PERCENT)", at=at)
        seed = node.args.get("seed")
        if seed is not None and not (isinstance(seed, exp.Literal) and not seed.is_string):
            raise self.fail("REPEATABLE takes a whole number (the seed)", at=at)
        return ast.Sample(
            check_percent(percent.this, at),
            check_seed(seed.this if seed is not None else None, at),
            at,
        )

    def check_grouping(self, statement: ast.Select, tree: exp.Select) -> None:
        if not statement.is_aggregate:
            if statement.having is not None:
                raise self.fail("HAVING needs GROUP BY or an aggregate", tree.args["having"])
            return
        stars = [i.expr for i in statement.items or () if isinstance(i.expr, ast.AllColumns)]
        if statement.items is None or stars:
            written = f"SELECT {stars[0].text}" if stars else "SELECT *"
            at = stars[0].pos if stars else self.find(r"\*")
            raise self.fail(f"{written} cannot be combined with GROUP BY or aggregates", at=at)
        if not statement.joins:  # a join's names are whose only once its sources are known
            check_grouped(statement)

    def select_list(
        self,
        expressions: list[exp.Expression],
        joined: bool = False,
        sources: tuple[str, str | None] = ("", None),
    ) -> tuple[ast.SelectItem, ...] | None:
        """The select list; None for ``*`` (and for ``t.*`` alone, t the table or its alias).
        In a join, ``o.*`` is every column of the source o."""
        if len(expressions) == 1 and isinstance(expressions[0], exp.Star):
            return None
        star = _star_source(expressions[0]) if len(expressions) == 1 and not joined else None
        if star is not None:
            if star not in sources:
                raise self.fail(f"{star}.*: no table or alias {star} in FROM", expressions[0])
            return None
        items: list[ast.SelectItem] = []
        texts = self.select_texts()
        for e in expressions:
            alias = None
            if isinstance(e, exp.Alias):
                alias = e.alias
                e = e.this
            star = _star_source(e)
            if isinstance(e, exp.Star) or (star is not None and not joined):
                raise self.fail("* cannot be combined with other columns", e)
            if star is not None:
                if alias is not None:
                    raise self.fail(f"{star}.* takes no alias: its columns keep their names", e)
                items.append(ast.SelectItem(ast.AllColumns(star, pos=self.pos(e))))
                continue
            converted = self.expr(e)
            if isinstance(converted, ast.Scalar | ast.Case) and alias is None:
                written = texts[len(items)] if len(texts) == len(expressions) else ""
                if written:
                    converted = dataclasses.replace(converted, text=written)
            item = ast.SelectItem(converted, alias)
            # a row is keyed by column name (json writes objects): one name, one value, so a
            # name may repeat only for the same computation (SELECT data, data AS data)
            if any(i.name == item.name and _differ(i.expr, converted) for i in items):
                raise self.fail(f"two columns are named {item.name}: give one an alias (AS …)", e)
            items.append(item)
        return tuple(items)

    def expr(self, e: exp.Expression) -> ast.Expr:
        """A select-list or ORDER BY item: a path, an aggregate, or an expression over
        paths, values and aggregates."""
        for kind, name in AGGREGATES.items():
            if type(e) is kind:
                return self.aggregate(e, name)
        if isinstance(e, exp.Column | exp.Dot | exp.Bracket):
            return self.path(e)
        if isinstance(e, exp.Paren):
            return self.expr(e.this)
        if isinstance(
            e, exp.Literal | exp.Boolean | exp.Null | exp.Placeholder | exp.Star
        ) or self._is_condition(e):
            raise self.fail(
                f"{_sql(e)} is not supported in the select list: select attribute paths, "
                "aggregates or expressions over them",
                e,
            )
        operand = self.operand(e, None, allow_aggregates=True)
        if isinstance(operand, ast.Scalar | ast.Case | ast.Size):
            return operand  # type: ignore[return-value]
        raise self.fail(f"{_sql(e)} is not supported in the select list", e)

    @staticmethod
    def _is_condition(e: exp.Expression) -> bool:
        return (
            isinstance(
                e,
                exp.And | exp.Or | exp.Not | exp.Between | exp.In | exp.Like | exp.Is | exp.ILike,
            )
            or type(e) in COMPARISONS
        )

    def group_item(self, e: exp.Expression, items: tuple[ast.SelectItem, ...] | None) -> Any:
        """A GROUP BY item: a path, an expression, a select-list position (``GROUP BY 1``)
        or the alias of a select-list expression (``… AS day GROUP BY day``)."""
        if isinstance(e, exp.Literal) and not e.is_string:
            n = int(e.this) if e.this.isdigit() else 0
            if not items or not 1 <= n <= len(items):
                raise self.fail(f"GROUP BY {e.this}: no such column position", e)
            chosen = items[n - 1].expr
            if isinstance(chosen, ast.Aggregate) or ast.aggregates_in(chosen):
                raise self.fail(f"GROUP BY {e.this}: that column is an aggregate", e)
            return chosen
        if isinstance(e, exp.Column) and not e.table:
            for item in items or ():
                if item.alias == e.name and not isinstance(item.expr, ast.Path):
                    if isinstance(item.expr, ast.Aggregate) or ast.aggregates_in(item.expr):
                        raise self.fail(f"GROUP BY {e.name}: that column is an aggregate", e)
                    return item.expr
        if isinstance(e, exp.Column | exp.Dot | exp.Bracket):
            return self.path(e)
        if type(e) in AGGREGATES:
            raise self.fail("aggregates are not allowed in GROUP BY", e)
        return self.operand(e)

    def aggregate(self, e: exp.Expression, name: str) -> ast.Aggregate:
        arg = e.this
        if arg is None:  # COUNT(), SUM()
            takes = "* or an attribute path" if name == "COUNT" else "an attribute path"
            raise self.fail(f"{name}() takes one argument: {takes}", e)
        distinct = False
        if isinstance(arg, exp.Distinct):
            if len(arg.expressions) != 1:
                raise self.fail(f"{name}(DISTINCT …) takes one path", e)
            distinct, arg = True, arg.expressions[0]
        if isinstance(arg, exp.Star):
            if name != "COUNT" or distinct:
                written = f"{name}(DISTINCT *)" if distinct else f"{name}(*)"
                raise self.fail(f"{written} is not supported; only COUNT(*)", e)
        path: ast.Path | None = None
        computed: Any = None
        if not isinstance(arg, exp.Star):
            if isinstance(arg, exp.Column | exp.Dot | exp.Bracket):
                path = self.path(arg)
            else:
                if any(type(x) in AGGREGATES for x in arg.find_all(*AGGREGATES)):
                    raise self.fail(f"{name}() cannot hold another aggregate", e)
                computed = self.operand(arg)  # SUM(price * qty): an expression per item
                if isinstance(computed, ast.Literal | ast.Param):
                    raise self.fail(f"{name}() takes an attribute path or an expression", e)
        if e.args.get("expressions"):
            raise self.fail(f"{name}() takes one argument", e)
        inner = computed.text if computed is not None else path.text if path else "*"
        text = f"{name}({'DISTINCT ' if distinct else ''}{inner})"
        written = self._written(name, text)
        return ast.Aggregate(name, path, distinct, text, self.pos(e), written, computed)

    def _written(self, name: str, text: str) -> str:
        """The aggregate's name with the case the user wrote (``count(*)``): aggregates are
        converted in source order, so the next ``name(`` after the previous one is this one."""
        m = re.compile(rf"\b({name})\s*\(\s*(DISTINCT\b)?", re.I).search(
            self.code, self._aggregate_at
        )
        if m is None:
            return text
        self._aggregate_at = m.end()
        written = m.group(1) + text[len(name) :]
        if m.group(2):
            written = written.replace("DISTINCT", m.group(2), 1)
        return written

    def order_item(
        self, o: exp.Ordered, items: tuple[ast.SelectItem, ...] | None, aliases: dict[str, Any]
    ) -> ast.OrderItem:
        e = o.this
        desc = bool(o.args.get("desc"))
        if isinstance(e, exp.Literal) and not e.is_string:
            n = int(e.this) if e.this.isdigit() else 0
            if not items or not 1 <= n <= len(items):
                raise self.fail(f"ORDER BY {e.this}: no such column position", e)
            return ast.OrderItem(items[n - 1].expr, desc)
        if isinstance(e, exp.Column) and not e.table and e.name in aliases:
            return ast.OrderItem(aliases[e.name].expr, desc)
        return ast.OrderItem(self.expr(e), desc)

    list_ends = _FROM  # what ends a select list (sql/tableless.py: WHERE, LIMIT, the end)

    def select_texts(self) -> list[str]:
        """Each select-list item's text as written, blanks collapsed: an expression without
        an alias is named so. Empty when the list cannot be cut at its commas."""
        start = re.match(r"\s*SELECT\b(\s+DISTINCT\b)?", self.code, re.I)
        if start is None:
            return []
        parts, depth, begin = [], 0, start.end()
        text = strip_comments(self.chunk.text)  # a comment is no part of a name
        tokens = rf"[()\[\],]|\bDISTINCT\s+FROM\b|{self.list_ends}"
        for m in re.finditer(tokens, self.code[start.end() :], re.I):
            token, at = m.group(0), start.end() + m.start()
            if token in "([":
                depth += 1
            elif token in ")]":
                depth -= 1
            elif depth == 0 and not token.upper().startswith("DISTINCT"):
                parts.append(re.sub(r"\s+", " ", text[begin:at]).strip())
                begin = at + 1
                if token != ",":
                    return parts
        if self.list_ends != _FROM and depth == 0:  # the list ends with the statement
            return [*parts, re.sub(r"\s+", " ", text[begin:]).strip().rstrip(";")]
        return []

    def nulls_placement(self, count: int) -> list[str | None]:
        """``NULLS FIRST``/``NULLS LAST`` of each ORDER BY item, read from the text (sqlglot
        fills in a default that cannot be told apart from an explicit one)."""
        found = list(re.finditer(r"\bNULLS\s+(FIRST|LAST)\b", self.code, re.I))
        clause = re.search(r"\bORDER\s+BY\b", self.code, re.I)
        if not found:
            return [None] * count
        if clause is None or found[0].start() < clause.end():
            raise self.fail(
                "NULLS FIRST/LAST belongs after an ORDER BY item", at=self.at(found[0].start())
            )
        end = re.compile(r"\bLIMIT\b", re.I).search(self.code, clause.end())
        text = self.code[clause.end() : end.start() if end else len(self.code)]
        parts, depth, start = [], 0, 0
        for i, ch in enumerate(text):
            depth += ch in "([" and 1 or ch in ")]" and -1 or 0
            if ch == "," and depth == 0:
                parts.append(text[start:i])
                start = i + 1
        parts.append(text[start:])
        if len(parts) != count:
            raise self.fail(
                "cannot tell which ORDER BY item NULLS FIRST/LAST belongs to",
                at=self.at(found[0].start()),
            )
        out: list[str | None] = []
        for part in parts:
            m = re.search(r"\bNULLS\s+(FIRST|LAST)\b", part, re.I)
            out.append(m.group(1).upper() if m else None)
        return out

    def limit(self, node: exp.Expression | None) -> int | None:
        if node is None:
            return None
        value = node.args.get("expression") or node.this
        if isinstance(value, exp.Literal) and not value.is_string and value.this.isdigit():
            return limit.value(self.operand(value))  # its range: the one rule
        if isinstance(value, exp.Placeholder):
            return self.param(value)  # type: ignore[return-value]
        if isinstance(value, exp.Paren | exp.Neg | exp.Add | exp.Sub | exp.Mul | exp.Div):
            expr = self.operand(value)
            if limit.is_constant(expr):  # LIMIT 1 + 2: folded now, or once its :params are bound
                return expr if limit.has_params(expr) else limit.value(expr)  # type: ignore[return-value]
        raise self.fail(
            "LIMIT takes a whole number, a :parameter or + - * / of them (LIMIT 1 + 2)",
            value or node,
        )

    def param(self, e: exp.Placeholder, locate: bool = True) -> ast.Param:
        """``:name``, or a ``?``: the n-th ``?`` of the statement is the parameter ``n``
        (``-v 1=value``; the DB-API's qmark parameters, in order)."""
        start = e.meta.get("start")
        if e.name == "?" and start is not None:
            if self._question_marks is None:  # found once: a VALUES of 10,000 rows has many
                self._question_marks = [m.start() for m in re.finditer(r"\?", self.code)]
            n = bisect.bisect_left(self._question_marks, start) + 1
            return ast.Param(str(n), self.at(start) if locate else ast.NOWHERE)
        if not e.name or e.name == "?":  # pragma: no cover - every ? comes from our parser
            raise self.fail("a parameter is ? or :name", e)
        return ast.Param(e.name, self.pos(e) if locate else ast.NOWHERE)

    # values
    def value_operand(
        self, e: exp.Expression, locate: bool = True
    ) -> ast.Literal | ast.Param | ast.Collection:
        """A value as written (in a write, or compared in a condition: ``l = [1, 2]``); a
        list, map or set holding a parameter stays a Collection until the statement is bound. `locate=False` (the rows of VALUES) keeps no
        positions: finding each value in the text is quadratic in the rows."""
        if isinstance(e, exp.Paren):
            return self.value_operand(e.this, locate)
        if isinstance(e, exp.Placeholder):
            return self.param(e, locate)
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
                    if i.this.name in out:  # PartiQL refuses it too: never the last one silently
                        raise self.fail(f"the map names {i.this.name} twice", i)
                    out[i.this.name] = self.value(i.expression)
                return out
            if not items:
                return {}  # PartiQL's {} too: the empty map (DynamoDB has no empty set)
            elements = [self.value(i) for i in items]
            found = values.set_of(elements)
            if found is None:
                raise self.fail(values.SET_RULE, e)
            if len(found) != len(elements):  # <<1, 1>>: PartiQL refuses it, so does dynosql
                raise self.fail("a set holds each value once: a value is written twice", e)
            return found
        raise self.fail(
            f"{_sql(e)} is not a value: use a literal, a list [..], a map or set {{..}}", e
        )

    # paths
    def path(self, e: exp.Expression) -> ast.Path:
        elements = self._path_elements(e)
        text = _path_text(elements)
        if len(elements) > MAX_PATH_DEPTH:
            # DynamoDB refuses the request ("The document path has too many nesting levels");
            # moto answers it: refused here, before any request, on every backend
            raise self.fail(
                f"{text if len(text) <= 40 else text[:40] + '…'} is {len(elements)} levels deep: DynamoDB document paths have at "
                f"most {MAX_PATH_DEPTH} (names and list indexes)",
                e,
            )
        quoted = isinstance(e, exp.Column) and not e.table and bool(e.this.args.get("quoted"))
        return ast.Path(tuple(elements), text, self.pos(e), quoted)

    def _path_elements(self, e: exp.Expression) -> list[str | int]:
        if isinstance(e, exp.Column):
            parts = [e.args.get(k) for k in ("catalog", "db", "table", "this")]
            names: list[str | int] = []
            for part in parts:
                if part is None:
                    continue
                if isinstance(part, exp.Star):
                    raise self.fail("* is not an attribute path", e)
                if not part.name:
                    raise self.fail("an attribute name cannot be empty", e)
                names.append(part.name)
            return names
        if isinstance(e, exp.Dot):
            right = e.expression
            if not isinstance(right, exp.Identifier):
                raise self.fail(f"{_sql(e)} is not an attribute path", e)
            if not right.name:
                raise self.fail("an attribute name cannot be empty", e)
            return [*self._path_elements(e.this), right.name]
        if isinstance(e, exp.Bracket):
            if len(e.expressions) != 1:
                raise self.fail("a list index takes one number: a[0]", e)
            index = e.expressions[0]
            if not (
                isinstance(index, exp.Literal) and not index.is_string and index.this.isdigit()
            ):
                raise self.fail("a list index must be a whole number: a[0]", e)
            return [*self._path_elements(e.this), int(index.this)]
        if isinstance(e, exp.Paren):
            return self._path_elements(e.this)
        raise self.fail(f"expected an attribute path, found {_sql(e)}", e)

    # conditions
    def where(self, tree: exp.Expression) -> ast.Condition | None:
        """A statement's WHERE: DynamoDB's key condition, filter or condition expression, so
        refused where DynamoDB refuses it on any backend (`refuse_repeated_operand`)."""
        clause = tree.args.get("where")
        if not clause:
            return None
        condition = self.condition(clause.this)
        refuse_repeated_operand(condition)
        return condition

    def condition(
        self,
        e: exp.Expression,
        aliases: dict[str, Any] | None = None,
        allow_aggregates: bool = False,
    ) -> ast.Condition:
        c = lambda x: self.condition(x, aliases, allow_aggregates)  # noqa: E731
        o = lambda x: self.operand(x, aliases, allow_aggregates)  # noqa: E731
        if isinstance(e, exp.Paren):
            return c(e.this)
        if isinstance(e, exp.And):
            return ast.And(tuple(_flatten(exp.And, e, c)))
        if isinstance(e, exp.Or):
            return ast.Or(tuple(_flatten(exp.Or, e, c)))
        if isinstance(e, exp.Not):
            if _is_missing(e.this):  # PartiQL's IS NOT MISSING: the attribute exists
                return ast.Function("attribute_exists", self.path(e.this.this), None, self.pos(e))
            return ast.Not(c(e.this))
        for kind, op in COMPARISONS.items():
            if type(e) is kind:
                left, right = self.compared(e, o)
                return ast.Compare(op, left, right, self.pos(e))
        if isinstance(e, exp.NullSafeEQ | exp.NullSafeNEQ):  # IS [NOT] DISTINCT FROM
            left, right = self.compared(e, o)
            pending = ast.IsDistinct(left, right, isinstance(e, exp.NullSafeNEQ), self.pos(e))
            if any(isinstance(x, ast.Param) for x in (left, right)):
                return pending  # lowered once bound: its form depends on the value
            return distinct.lowered(pending)
        if isinstance(e, exp.Between):
            return ast.Between(o(e.this), o(e.args["low"]), o(e.args["high"]), self.pos(e))
        if isinstance(e, exp.In):
            if e.args.get("query") or e.args.get("unnest") or e.args.get("field"):
                raise self.fail("IN takes a list of values, not a subquery", e)
            operands = tuple(o(v) for v in e.expressions)
            if not operands:
                raise self.fail("IN needs at least one value", e)
            if len(operands) > MAX_IN_VALUES:
                raise self.fail(
                    f"IN takes at most {MAX_IN_VALUES} values (each key one request, or 100 "
                    f"a BatchGetItem), found {len(operands)}",
                    e,
                )
            return ast.In(o(e.this), operands, self.pos(e))
        if isinstance(e, exp.Like):
            return self.like(e)
        if isinstance(e, exp.Escape) and isinstance(e.this, exp.Like):
            return self.like(e.this, e.expression)
        if isinstance(e, exp.Escape):
            raise self.fail("ESCAPE follows a LIKE pattern: a LIKE 'x/%' ESCAPE '/'", e)
        if isinstance(e, exp.ILike):
            raise self.fail("ILIKE is not supported: DynamoDB compares strings exactly", e)
        if isinstance(e, exp.Is):
            if _is_missing(e):  # PartiQL's IS MISSING: no such attribute (not a stored NULL)
                return ast.Function("attribute_not_exists", self.path(e.this), None, self.pos(e))
            type_word = _type_word(e)
            if type_word is not None:  # PartiQL's IS STRING, IS NUMERIC, …: attribute_type
                code = ast.Literal(IS_TYPES[type_word], self.pos(e.expression))
                return ast.Function("attribute_type", self.path(e.this), code, self.pos(e))
            if not isinstance(e.expression, exp.Null):
                raise self.fail(
                    "IS takes NULL, MISSING or a type (STRING, NUMERIC, BOOLEAN, BLOB, LIST, "
                    "STRUCT), each with or without NOT",
                    e,
                )
            if not isinstance(e.this, exp.Column | exp.Dot | exp.Bracket):
                subject = o(e.this)
                if isinstance(subject, ast.Scalar | ast.Case | ast.Aggregate | ast.Value):
                    # SUBSTR(x, 1, 2) IS NULL: the expression's NULL (x missing, NULL or of
                    # another type), checked client-side, as is a value's (`:p IS NULL`);
                    # `p IS NULL` stays DynamoDB's
                    text = f"{sql_text(subject)} IS NULL"
                    null = ast.Scalar("IS_NULL", (subject,), text, self.pos(e))
                    return ast.Compare("=", null, ast.Literal(True), self.pos(e))
            return ast.IsNull(self.path(e.this), self.pos(e))
        if isinstance(e, exp.Contains):
            return ast.Function("contains", self.path(e.this), o(e.expression), self.pos(e))
        if isinstance(e, exp.Anonymous | exp.Func) and not isinstance(e, tuple(AGGREGATES)):
            return self.function(e)
        if isinstance(e, exp.Column | exp.Dot | exp.Bracket):  # WHERE flag: flag = TRUE
            return ast.Compare("=", self.path(e), ast.Literal(True, self.pos(e)), self.pos(e))
        if isinstance(e, exp.Boolean):
            raise self.fail(f"{_sql(e)} is not a condition: compare an attribute to it", e)
        raise self.fail(f"{_sql(e)} is not supported in a condition", e)

    def compared(self, e: exp.Expression, o: Callable[[Any], Any]) -> tuple[Any, Any]:
        """The two operands of a comparison; two values alone are refused (DynamoDB compares
        an attribute)."""
        left, right = o(e.this), o(e.expression)
        if isinstance(left, ast.Value) and isinstance(right, ast.Value):
            at = left.pos if left.pos != ast.NOWHERE else None  # sqlglot places no :p
            raise self.fail("a comparison needs an attribute on one side", e, at=at)
        return left, right

    def like(self, e: exp.Like, escape: exp.Expression | None = None) -> ast.Condition:
        condition = self._like(e, escape)
        # sqlglot marks `x NOT LIKE p` with a flag on the LIKE node itself
        return ast.Not(condition) if e.args.get("negate") else condition

    def _like(self, e: exp.Like, escape_node: exp.Expression | None) -> ast.Condition:
        """LIKE 'abc%' is begins_with (a key condition when on a sort key); the rules are
        dynosql/sql/like.py's. A pattern (or ESCAPE) that holds a :parameter, alone or
        concatenated with strings (SQLAlchemy's ``:p || '%'``), is read when it is bound."""
        if isinstance(e.this, exp.Column | exp.Dot | exp.Bracket):
            subject: Any = self.path(e.this)
        else:
            subject = self.operand(e.this)  # LOWER(name) LIKE '%ana%': checked client-side
        parts = tuple(self._pattern_part(p, e) for p in _concatenated(e.expression))
        escape = None if escape_node is None else self._pattern_part(escape_node, e, "ESCAPE")
        pending = ast.LikeParam(subject, parts, escape, self.pos(e), self.pos(e.expression))
        if any(isinstance(p, ast.Param) for p in (*parts, escape)):
            return pending
        return like.bound(pending)

    def _pattern_part(
        self, node: exp.Expression, like_node: exp.Like, what: str = "LIKE"
    ) -> ast.Literal | ast.Param:
        if isinstance(node, exp.Literal) and node.is_string:
            return ast.Literal(node.this, self.pos(node))
        if isinstance(node, exp.Placeholder):
            param = self.operand(node)  # a parameter as every operand reads one
            if isinstance(param, ast.Param):
                return param
        raise self.fail(f"{what} takes a string pattern (or a :parameter)", node or like_node)

    def function(self, e: exp.Expression) -> ast.Condition:
        if isinstance(e, exp.Anonymous):
            name = e.name.lower()
        else:
            name = (e.sql_name() if isinstance(e, exp.Func) else e.key).lower()
        args = (
            list(e.expressions)
            if isinstance(e, exp.Anonymous)
            else [a for a in e.args.values() if isinstance(a, exp.Expression)]
        )
        if isinstance(e, exp.StartsWith):
            # STARTS_WITH is begins_with (sqlglot reads it as its own node); over an
            # expression it is a client-side check
            if isinstance(e.this, exp.Column | exp.Dot | exp.Bracket):
                name, args = "begins_with", [e.this, e.expression]
            else:
                started = self.scalar(e, None, False)
                return ast.Compare("=", started, ast.Literal(True), self.pos(e))
        if name not in CONDITION_FUNCTIONS:
            if name == "size":
                raise self.fail("size() must be compared: size(p) > 3", e)
            if (
                type(e) in _SCALAR_NODES
                or name.upper() in _ANONYMOUS
                or name.upper() in keywords.ITEM_MEASURES
            ):
                text = _sql(e)
                raise self.fail(f"{text} is not a condition: compare it, e.g. {text} = …", e)
            guess = function_guess(name, keywords.functions("condition", "operand"))
            hint = f": did you mean {guess}()?" if guess else ""
            raise self.fail(f"unknown function {name}(){hint}", e)
        want = CONDITION_FUNCTIONS[name]
        if len(args) != want:
            raise self.fail(f"{name}() takes {want} argument{'s' if want > 1 else ''}", e)
        path = self.path(args[0])
        arg = None
        if want == 2:
            arg = self.operand(args[1])
            if name == "attribute_type":
                if not isinstance(arg, ast.Literal | ast.Param):
                    raise self.fail("attribute_type() takes a type name: 'S', 'N', ...", e)
                if isinstance(arg, ast.Literal) and arg.value not in values.TYPE_CODES:
                    raise self.fail(
                        f"attribute_type(): unknown type {arg.value!r}; one of {', '.join(values.TYPE_CODES)}",
                        e,
                    )
        return ast.Function(name, path, arg, self.pos(e))

    def operand(
        self,
        e: exp.Expression,
        aliases: dict[str, Any] | None = None,
        allow_aggregates: bool = False,
    ) -> ast.Operand:
        if isinstance(e, exp.Paren):
            return self.operand(e.this, aliases, allow_aggregates)
        if isinstance(e, exp.Literal):
            if e.is_string:
                return ast.Literal(e.this, self.pos(e))
            return ast.Literal(self.number(e.this, e), self.pos(e))
        if isinstance(e, exp.Neg) and isinstance(e.this, exp.Literal) and not e.this.is_string:
            return ast.Literal(self.number(e.this.this, e, negative=True), self.pos(e))
        if isinstance(e, exp.Boolean):
            return ast.Literal(bool(e.this), self.pos(e))
        if isinstance(e, exp.Null):
            return ast.Literal(None, self.pos(e))
        if isinstance(e, exp.Placeholder):
            return self.param(e)
        if isinstance(e, exp.Anonymous) and e.name.lower() == "size":
            if len(e.expressions) != 1:
                raise self.fail("size() takes 1 argument", e)
            return ast.Size(self.path(e.expressions[0]), self.pos(e))
        if allow_aggregates:
            for kind, name in AGGREGATES.items():
                if type(e) is kind:
                    return self.aggregate(e, name)
            if isinstance(e, exp.Column) and not e.table and aliases and e.name in aliases:
                return aliases[e.name].expr
        if isinstance(e, exp.Column | exp.Dot | exp.Bracket):
            return self.path(e)
        if isinstance(e, exp.Array | exp.Struct):  # [1, 2], {'k': 1}, {'a', 'b'} (<<'a', 'b'>>)
            return self.value_operand(e)  # type: ignore[return-value]
        if type(e) in AGGREGATES:
            raise self.fail("aggregates are not allowed in WHERE; use HAVING", e)
        return self.scalar(e, aliases, allow_aggregates)

    def scalar(
        self, e: exp.Expression, aliases: dict[str, Any] | None, allow_aggregates: bool
    ) -> ast.Scalar | ast.Case:
        """A scalar expression (dynosql/evaluate/scalar.py computes it client-side), named by
        its SQL text; a refusal names the function as it was typed."""
        o = lambda x: self.operand(x, aliases, allow_aggregates)  # noqa: E731
        pos = self.pos(e)
        if isinstance(e, exp.Case):
            return self.case(e, aliases, allow_aggregates, e.sql(dialect=DynoSQL), pos)
        if isinstance(e, exp.Anonymous) and e.name.upper() in keywords.ITEM_MEASURES:
            return self.item_measure(e, pos)
        operands: tuple[Any, ...]
        if isinstance(e, exp.Cast):
            func, params = self.cast_type(e)
            operands = (o(e.this), *params)
        else:
            func, args = self.scalar_parts(e)
            if func == "DATE_TRUNC":
                operands = (self.trunc_unit(e), o(e.this))
            elif func == "TRIM":
                chars = e.args.get("expression")
                where = str(e.args.get("position") or "BOTH").upper()
                first = (o(e.this), o(chars) if chars is not None else ast.Literal(" "))
                operands = (*first, ast.Literal(where))
            else:
                operands = tuple(o(a) for a in args)
        return ast.Scalar(func, operands, expression_text(func, operands), pos)

    def scalar_parts(self, e: exp.Expression) -> tuple[str, list[exp.Expression]]:
        """(our function name, the sqlglot arguments) of a scalar expression, its arity
        checked; anything else refused."""
        for kind, func in _SCALAR_NODES.items():
            if type(e) is kind:
                names = [a for a in _SCALAR_ARGS.get(func, ("this", "expression"))]
                args = [e.args.get(n) for n in names]
                if func == "CONCAT" or func == "COALESCE":
                    args = ([e.this] if e.this is not None else []) + list(e.expressions)
                    if not args:
                        raise self.function_error(e, func, "takes at least 1 argument")
                    return func, args
                while args and args[-1] is None and func in _OPTIONAL_LAST:
                    args.pop()
                extra = [
                    k for k, v in e.args.items() if isinstance(v, exp.Expression) and k not in names
                ]
                if any(a is None for a in args) or extra or len(args) < _MIN_ARGS.get(func, 1):
                    raise self.function_error(e, func, _ARITY[func])
                return func, [a for a in args if a is not None]
        if isinstance(e, exp.Anonymous) and e.name.upper() in _ANONYMOUS:
            func = e.name.upper()
            want = _ANONYMOUS[func]
            if len(e.expressions) != want:
                raise self.function_error(e, func, _ARITY[func])
            return func, list(e.expressions)
        if isinstance(e, exp.CurrentTimestamp):
            return "NOW", []
        if isinstance(e, exp.Anonymous | exp.Func) and not isinstance(e, tuple(AGGREGATES)):
            name = e.name if isinstance(e, exp.Anonymous) else e.sql_name()
            guess = function_guess(name.lower(), keywords.functions("operand", "scalar"))
            hint = f": did you mean {guess}()?" if guess else ""
            at = self.find(rf"\b{re.escape(name)}\s*\(") if name else None
            raise self.fail(f"unknown function {name}(){hint}", e, at=at)
        raise self.fail(
            f"{_sql(e)} is not supported here: use an attribute path, a literal or an expression", e
        )

    def item_measure(self, e: exp.Anonymous, pos: ast.Pos) -> ast.Scalar:
        """``ITEM_SIZE()``, ``ITEM_RCU([mode])``, ``ITEM_WCU([mode])``: the mode, checked, is
        the one argument, always present (the default filled in), so that two spellings of one
        measure are one group."""
        func = e.name.upper()
        modes = keywords.ITEM_MEASURES[func]
        if not self.item_measures:
            raise self.function_error(
                e,
                func,
                "sizes the whole items a SELECT reads; a write's WHERE cannot use it (find the "
                f"items with SELECT … WHERE {func}() > …, then write them by key)",
            )
        args = list(e.expressions)
        if not modes and args:
            raise self.function_error(e, func, "takes no arguments")
        if len(args) > 1 or (
            args
            and not (
                isinstance(args[0], exp.Literal)
                and args[0].is_string
                and args[0].this.lower() in modes
            )
        ):
            quoted = keywords.listing([f"'{m}'" for m in modes])
            raise self.function_error(e, func, f"takes no argument or one of {quoted}")
        operands: tuple[ast.Literal, ...] = ()
        if modes:
            at = self.pos(args[0]) if args else pos
            operands = (ast.Literal(args[0].this.lower() if args else modes[0], at),)
        return ast.Scalar(func, operands, expression_text(func, operands), pos)

    def function_error(self, e: exp.Expression, func: str, message: str) -> SqlError:
        """An error naming the function as it was typed (SUBSTR, not SUBSTRING), at its name."""
        spellings = _SPELLINGS.get(func, (func,))
        pattern = r"\b(" + "|".join(re.escape(n) for n in spellings) + r")\s*\("
        m = re.search(pattern, self.code, re.I)
        written = m.group(1) if m else func
        at = self.at(m.start()) if m else None
        return self.fail(f"{written}() {message}", e, at=at)

    def trunc_unit(self, e: exp.Expression) -> ast.Literal:
        unit = e.args.get("unit")
        name = unit.name.lower() if isinstance(unit, exp.Literal | exp.Var) else None
        if name not in _TRUNC_UNITS:
            units = ", ".join(f"'{u}'" for u in _TRUNC_UNITS)
            raise self.function_error(e, "DATE_TRUNC", f"takes a unit first: one of {units}")
        return ast.Literal(name, self.pos(unit))

    def cast_type(self, e: exp.Cast) -> tuple[str, tuple[ast.Literal, ...]]:
        """The scalar function of a CAST and its type's parameters (sql/casts.py)."""
        try:
            return casts.cast_of(e.args.get("to"))
        except casts.CastError as err:
            self._typed_literal(e)  # TIMESTAMP '…': DynamoDB has no date type
            why = str(err) if str(err) != casts.TAKES else f"{_sql(e)} is not supported: {err}"
            raise self.fail(why, e, at=self.find(r"\bCAST\b|::")) from None

    def case(
        self,
        e: exp.Case,
        aliases: dict[str, Any] | None,
        allow_aggregates: bool,
        text: str,
        pos: ast.Pos,
    ) -> ast.Case:
        o = lambda x: self.operand(x, aliases, allow_aggregates)  # noqa: E731
        subject = o(e.this) if e.this is not None else None
        whens = []
        for branch in e.args.get("ifs") or []:
            when, then = branch.this, branch.args.get("true")
            if subject is not None:
                condition: ast.Condition = ast.Compare("=", subject, o(when), self.pos(when))
            else:
                condition = self.condition(when, aliases, allow_aggregates)
            whens.append((condition, o(then)))
        default = e.args.get("default")
        return ast.Case(
            tuple(whens), o(default) if default is not None else ast.Literal(None), text, pos
        )

    def _typed_literal(self, e: exp.Cast) -> None:
        """``TIMESTAMP '…'`` / ``DATE '…'`` (sqlglot reads them as a CAST): refused at the
        user's own text, quoting it, with what to write instead."""
        pattern = re.compile(r"\b(TIMESTAMP|DATETIME|DATE|TIME)\b(?=\s*')|\b(CAST)\s*\(", re.I)
        m = next(
            (m for m in pattern.finditer(self.chunk.text) if self.code[m.start()] != " "), None
        )
        if m is None:
            return
        if m.group(2):
            return  # CAST(x AS …): the caller names the types CAST takes
        literal = re.compile(r"\s*'(?:[^']|'')*'").match(self.chunk.text, m.end())
        written = m.group(1) + (literal.group(0) if literal else "")
        value = e.this.this if isinstance(e.this, exp.Literal) else "…"
        raise self.fail(
            f"{written.strip()} is not supported: DynamoDB has no date type; compare the "
            f"stored text, e.g. '{value}'",
            at=self.at(m.start()),
        )

    def number(self, text: str, node: exp.Expression, negative: bool = False) -> Decimal:
        """A number literal's text (and its sign: ``-`` then the literal) exactly, or an error
        at `node` (see `values.literal_number`)."""
        try:
            return values.literal_number(text, negative)
        except ValueError as err:
            raise self.fail(str(err), node) from err


# PartiQL's type predicates (``x IS STRING``) as DynamoDB's attribute_type codes: the types
# its IS takes (DynamoDB Local lists MISSING, NULL, BOOLEAN, BLOB, STRING, NUMERIC, STRUCT,
# TUPLE and LIST; a set has none)
IS_TYPES = {
    "STRING": "S",
    "NUMERIC": "N",
    "BOOLEAN": "BOOL",
    "BOOL": "BOOL",
    "BLOB": "B",
    "LIST": "L",
    "STRUCT": "M",
    "TUPLE": "M",
}


def _type_word(e: exp.Expression) -> str | None:
    """The type of ``p IS STRING`` (…) as sqlglot reads it: IS and a bare word."""
    right = e.expression if isinstance(e, exp.Is) else None
    if isinstance(right, exp.Column) and not right.table and not right.this.args.get("quoted"):
        word = right.name.upper()
        return word if word in IS_TYPES else None
    return None


# what introduces a join after FROM: a JOIN phrase or a comma (parentheses counted, to skip
# the commas inside an ON condition's function calls and IN lists)
_JOINER = re.compile(
    r"[(),]|\b(?:(?:NATURAL|LEFT|RIGHT|FULL|INNER|CROSS|SEMI|ANTI|OUTER)\s+)*JOIN\b", re.I
)


def _join_refusal(words: list[str], first: str, name: str) -> str | None:
    """Why a join written with these words is refused (None: JOIN, INNER JOIN, LEFT [OUTER]
    JOIN). dynosql reads the rows of each source by key from the rows before it, so a join
    keeps the rows before it (LEFT) or not (inner); nothing else can be read that way."""
    if words == [","]:
        return f"FROM {first}, {name} is not supported: write the join as JOIN {name} ON …"
    for word, why in (
        ("NATURAL", "write JOIN … ON with the columns that join"),
        ("CROSS", "a join reads by key: write JOIN … ON with the columns that join"),
        ("RIGHT", "put the source whose rows are kept first and write LEFT JOIN"),
        ("FULL", "a join keeps the rows before it (LEFT JOIN) or not (JOIN)"),
        ("SEMI", "write JOIN … ON"),
        ("ANTI", "write LEFT JOIN … ON and test the joined side's key IS MISSING"),
    ):
        if word in words:
            return f"{word} JOIN is not supported: {why}"
    return None


def check_grouped(statement: ast.Select) -> None:
    """Refuse a path of an aggregate SELECT that is neither grouped nor inside an aggregate
    (select list, HAVING, ORDER BY), at the path."""
    assert statement.items is not None
    grouped = {ast.key_of(g) for g in statement.group_by}
    having = _ungrouped(statement.having, grouped, _is_item_measure)
    for loose in [*(_ungrouped(i.expr, grouped) for i in statement.items), having]:
        if loose is not None:
            p = loose.pos
            inside = f": SUM({loose.text})" if _is_item_measure(loose) else ""
            raise SqlError(
                f"{loose.text} must appear in GROUP BY or be inside an aggregate{inside}",
                p.line,
                p.col,
            )
    names = {i.name for i in statement.items}
    for order in statement.order_by:
        if _ungrouped(order.expr, grouped) is not None and order.expr.text not in names:
            p = order.expr.pos
            raise SqlError(
                f"ORDER BY {order.expr.text}: order by a grouped column or an aggregate",
                p.line,
                p.col,
            )


def _star_source(e: exp.Expression) -> str | None:
    """The ``o`` of ``o.*`` (sqlglot reads it as a column whose name is a star), else None."""
    if isinstance(e, exp.Column) and isinstance(e.this, exp.Star) and e.table:
        return str(e.table)
    return None


def _is_missing(e: exp.Expression) -> bool:
    """``p IS MISSING`` as sqlglot reads it: IS with the bare word MISSING (a column)."""
    right = e.expression if isinstance(e, exp.Is) else None
    return (
        isinstance(right, exp.Column)
        and not right.table
        and not right.this.args.get("quoted")
        and right.name.upper() == "MISSING"
    )


def _differ(a: Any, b: Any) -> bool:
    """Two select-list expressions that may compute different values."""
    return bool(ast.key_of(a) != ast.key_of(b))


def _is_item_measure(node: Any) -> bool:
    return isinstance(node, ast.Scalar) and node.func in keywords.ITEM_MEASURES


def _per_item(node: Any) -> bool:
    """What has a value per item but none per group: a path, ITEM_SIZE() and its kin."""
    return isinstance(node, ast.Path) or _is_item_measure(node)


def _ungrouped(
    node: Any, grouped: set[Any], loose: Callable[[Any], bool] = _per_item
) -> ast.Path | ast.Scalar | None:
    """The first path (or ITEM_SIZE(), ...; what `loose` picks) of an expression that is
    neither grouped (by itself or inside a grouped expression) nor inside an aggregate; None
    when the expression is computable from each group."""
    if isinstance(node, ast.Aggregate | ast.Literal | ast.Param) or node is None:
        return None
    if isinstance(node, ast.Path | ast.Scalar | ast.Case | ast.Size) and (
        ast.key_of(node) in grouped
    ):
        return None
    if loose(node):
        return node
    if isinstance(node, ast.Path):
        return None
    if isinstance(node, tuple):
        return next((p for x in node if (p := _ungrouped(x, grouped, loose)) is not None), None)
    for name in ast.field_names(type(node)):
        value = getattr(node, name)
        if not isinstance(value, str | ast.Pos):
            found = _ungrouped(value, grouped, loose)
            if found is not None:
                return found
    return None


def _concatenated(e: exp.Expression) -> list[exp.Expression]:
    """The operands of ``a || b || c`` in order (one operand for anything else)."""
    if isinstance(e, exp.DPipe):
        return [*_concatenated(e.this), *_concatenated(e.expression)]
    if isinstance(e, exp.Paren):
        return _concatenated(e.this)
    return [e]


def _flatten(kind: type, e: exp.Expression, convert) -> list[Any]:
    """The operands of a chain of ANDs (or ORs), left to right, without recursion: sqlglot
    nests `a OR b OR c …` one level per operand."""
    out, stack = [], [e]
    while stack:
        node = stack.pop()
        if isinstance(node, kind):
            stack.append(node.expression)
            stack.append(node.this)
        else:
            out.append(convert(node))
    return out


_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

# words that join or open clauses and never start an expression's own SQL
_NEVER_LEADS = frozenset(
    {"AND", "OR", "WHERE", "HAVING", "BY", "ON", "SET", "THEN", "ELSE", "WHEN"}
)


def _path_text(elements: list[str | int]) -> str:
    out = ""
    for el in elements:
        if isinstance(el, int):
            out += f"[{el}]"
        else:
            name = el if _PLAIN.match(el) or not re.search(r"[.\[\]]", el) else f'"{el}"'
            out += name if not out else f".{name}"
    return out


def _sql(e: exp.Expression) -> str:
    try:
        text = e.sql()
    except Exception:  # noqa: BLE001 - only used to name the construct in a message
        text = e.key.upper()
    return text if len(text) <= 40 else text[:37] + "..."
