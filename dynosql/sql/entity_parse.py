"""The entity statements: CREATE ENTITY, DROP ENTITY, SHOW ENTITIES (the declared ones), SHOW
CREATE ENTITY and DESCRIBE ENTITY. Their grammar is in ``grammar/README.md``; every refusal
names the line and column of the offending word. What the table says about a definition (key
names, types) is checked when it runs (``dynosql.entities.check``), not here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from dynosql import values
from dynosql.entity_model import Access, Column, Entity, Template
from dynosql.errors import SqlError
from dynosql.sql import ast
from dynosql.sql.keywords import STARTERS, listing, show_refused
from dynosql.sql.select_parse import parse_select
from dynosql.sql.split import Chunk, strip_comments
from dynosql.sql.table_and_copy_parse import _Reader

# the session's (a table's, SHOW ENTITIES FROM t, is dynosql/statements/entities.py's)
_DECLARED = re.compile(r"\s*SHOW\s+ENTITIES\s*;?\s*$", re.I)

_TOKEN = re.compile(
    r"""(?P<ws>\s+)
    |(?P<ident>"(?:[^"]|"")*")
    |(?P<string>'(?:[^']|'')*')
    |(?P<number>-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)
    |(?P<word>[A-Za-z_][A-Za-z0-9_\-]*)
    |(?P<punct>\|\||[(),;=])
    |(?P<other><>|!=|<=|>=|[<>+*/%.\[\]:?-])""",
    re.X,
)


class _EntityReader(_Reader):
    """The table statements' reader, with ``||``, ``=``, numbers and (inside an index's WHERE)
    the operators of a condition."""

    TOKEN = _TOKEN

    def __init__(self, chunk: Chunk, text: str, position: Callable[[int], ast.Pos]):
        self.composed: dict[str, Template] = {}
        super().__init__(chunk, text, position)

    def entity_statement(self, parse_select: Callable[[Chunk], ast.Select]) -> ast.Statement:
        first = self.expect("CREATE", "DROP", "SHOW", "DESCRIBE", "DESC")
        if first == "CREATE":
            self.expect("ENTITY")
            return self.create(parse_select)
        if first == "DROP":
            self.expect("ENTITY")
            missing_ok = False
            if self.accept("IF"):
                self.expect("EXISTS")
                missing_ok = True
            pos = self.position(self.here())
            name = self.name("an entity name")
            self.done()
            return ast.DropEntity(name, missing_ok, pos)
        if first == "SHOW":
            if self.accept("ENTITIES"):
                self.done()
                return ast.ShowDeclaredEntities()
            self.expect("CREATE")
            self.expect("ENTITY")
            pos = self.position(self.here())
            name = self.name("an entity name")
            self.done()
            return ast.ShowCreateEntity(name, pos)
        self.expect("ENTITY")
        pos = self.position(self.here())
        name = self.name("an entity name")
        self.done()
        return ast.DescribeEntity(name, pos)

    # --- CREATE ENTITY ---------------------------------------------------------------------

    def create(self, parse_select: Callable[[Chunk], ast.Select]) -> ast.CreateEntity:
        pos = self.position(self.here())
        name = self.name("an entity name")
        self.expect("ON")
        table_at = self.here()
        table_pos = self.position(table_at)
        table = self.name("a table name")
        self.expect_punct("(")
        key: Access | None = None
        indexes: list[Access] = []
        constants: dict[str, Any] = {}
        owner: dict[str, str] = {}  # attribute -> the part that composes it
        while True:
            at = self.here()
            following = self.peek(1)
            constant = following is not None and following.text == "="
            if self.at_word("KEY") and not constant:
                self.i += 1
                if key is not None:
                    raise self.error(at, "KEY given twice: one KEY (…) for the table's own key")
                key = self.access(None, at)
                self._owned(key, owner, "KEY")
            elif self.at_word("INDEX") and not constant:
                self.i += 1
                index_at = self.here()
                index = self.name("an index name")
                if any(a.index == index for a in indexes):
                    raise self.error(index_at, f"INDEX {index} given twice")
                access = self.access(index, at)
                if self.accept("WHERE"):
                    access = self.where(access, parse_select)
                indexes.append(access)
                self._owned(access, owner, f"INDEX {index}")
            else:
                attribute = self.name("KEY (…), INDEX name (…) or a constant: attribute = value")
                self.expect_punct("=")
                if attribute in owner:
                    raise self.error(at, f"{attribute} is given twice ({owner[attribute]} too)")
                constants[attribute] = self.constant()
                owner[attribute] = "a constant"
            if not self.punct(","):
                break
        self.expect_punct(")")
        self.done()
        if key is None:
            raise self.error(
                table_at,
                "CREATE ENTITY needs KEY (pk = template [, sk = template]) for the table's key",
            )
        entity = Entity(name, table, key, tuple(indexes), tuple(constants.items()))
        return ast.CreateEntity(entity, pos, table_pos, self.chunk.text.strip())

    def _owned(self, access: Access, owner: dict[str, str], part: str) -> None:
        """Each attribute is composed by one template; an index may repeat one of the table's
        key templates as it is (an LSI's partition key, an inverted GSI)."""
        for template in access.templates:
            before = self.composed.get(template.attribute)
            if before is not None and before.parts == template.parts:
                continue
            if template.attribute in owner:
                raise SqlError(
                    f"{template.attribute} is composed twice ({owner[template.attribute]} and "
                    f"{part}) by different templates",
                    template.pos.line,
                    template.pos.col,
                )
            owner[template.attribute] = part
            self.composed[template.attribute] = template

    def access(self, index: str | None, at: int) -> Access:
        self.expect_punct("(")
        templates = [self.template()]
        if self.punct(","):
            templates.append(self.template())
        if not self.punct(")"):
            raise self.fail("')': a key has a partition key template and at most a sort key one")
        pk = templates[0]
        sk = templates[1] if len(templates) > 1 else None
        return Access(index, pk, sk, pos=self.position(at))

    def template(self) -> Template:
        at = self.here()
        attribute = self.name("a key attribute: pk = 'PREFIX#' || column")
        self.expect_punct("=")
        parts: list[str | Column] = []
        while True:
            token = self.peek()
            if token is not None and token.kind == "string":
                text = self.string("a literal")
                if parts and isinstance(parts[-1], str):
                    parts[-1] += text  # 'A' || 'B' is 'AB'
                elif text:
                    parts.append(text)
            elif token is not None and token.kind in ("word", "ident"):
                column_at = self.here()
                column = Column(self.name("a column"))
                if parts and isinstance(parts[-1], Column):
                    raise self.error(
                        column_at,
                        f"{parts[-1].name} and {column.name} are next to each other in "
                        f"{attribute}: separate them with a literal delimiter "
                        f"({parts[-1].name} || '#' || {column.name}), or they could not be "
                        "read back",
                    )
                if column in parts:
                    raise self.error(column_at, f"{column.name} appears twice in {attribute}")
                parts.append(column)
            else:
                raise self.fail("a 'literal' or a column name")
            if not self.punct("||"):
                break
        if not parts:
            raise self.error(at, f"the template of {attribute} composes an empty value")
        return Template(attribute, tuple(parts), pos=self.position(at))

    def where(self, access: Access, parse_select: Callable[[Chunk], ast.Select]) -> Access:
        """``INDEX … WHERE condition``: the condition runs to the next ``,`` or ``)`` outside
        parentheses; it is read as a SELECT's WHERE where it stands (positions kept)."""
        start = self.here()
        depth = 0
        while True:
            token = self.peek()
            if token is None:
                raise self.fail("')' after the index's WHERE condition")
            if token.kind == "punct" and token.text == "(":
                depth += 1
            elif token.kind == "punct" and token.text == ")":
                if depth == 0:
                    break
                depth -= 1
            elif token.kind == "punct" and token.text == "," and depth == 0:
                break
            self.i += 1
        end = token.at
        if end <= start:
            raise self.fail("a condition after WHERE")
        # the condition as a SELECT's WHERE, in a chunk that starts where it stands
        head = "SELECT * FROM t WHERE "
        at = self.position(start)
        condition = self.text[start:end]
        select = parse_select(Chunk(head + condition, at.line, at.col - len(head)))
        if select.is_aggregate or select.where is None:
            raise self.error(start, "an index's WHERE takes a condition on the entity's columns")
        shown = " ".join(condition.split())
        return Access(access.index, access.pk, access.sk, select.where, shown, access.pos)

    def constant(self) -> Any:
        token = self.peek()
        if token is None:
            raise self.fail("a constant: a 'string', a number, TRUE or FALSE")
        if token.kind == "string":
            return self.string("a constant")
        if token.kind == "number":
            self.i += 1
            try:
                return values.number(token.text)
            except ValueError as err:
                raise self.error(token.at, str(err)) from None
        word = self.accept("TRUE", "FALSE")
        if word is not None:
            return word == "TRUE"
        raise self.fail("a constant: a 'string', a number, TRUE or FALSE")


def parse_entity_statement(
    chunk: Chunk, code: str, position: Callable[[int], ast.Pos]
) -> ast.Statement:
    """One of the entity statements (`code`: the chunk with comments blanked)."""
    if re.match(r"\s*SHOW\s+ENTITIES\b", code, re.I) and not _DECLARED.match(code):
        raise show_refused(code, position)
    return _EntityReader(chunk, code, position).entity_statement(parse_select)


def explain(
    chunk: Chunk, match: re.Match[str], pos: Callable[[Chunk, str, int], ast.Pos]
) -> ast.Explain:
    """``EXPLAIN CREATE ENTITY …`` and ``EXPLAIN DROP ENTITY …``: what the definition would
    declare or forget (`chunk` has the EXPLAIN words blanked out, positions kept). The other
    entity statements are not EXPLAIN's (the parser refuses them by their first word)."""
    code = strip_comments(chunk.text)
    statement = parse_entity_statement(chunk, code, lambda index: pos(chunk, code, index))
    if match.group(1):
        label = "CREATE ENTITY" if isinstance(statement, ast.CreateEntity) else "DROP ENTITY"
        at = pos(chunk, chunk.text, match.end(1) - len("ANALYZE"))
        raise SqlError(
            f"EXPLAIN ANALYZE takes {listing([s.word for s in STARTERS if s.analyze])}: "
            f"{label} sends no request (EXPLAIN {label} says what it does)",
            at.line,
            at.col,
        )
    return ast.Explain(statement)
