"""An entity SELECT rewritten into the physical SELECT that an expert would write, which the
planner then plans like any other (no second planner). Pure, no I/O.

The WHERE's conditions on key columns become conditions on the composed key attributes:

- an equality (or IN) on every column of a template is ``attribute = composed``;
- equalities on its first columns (in order) are ``begins_with(attribute, prefix)``, the prefix
  running through the delimiter after the last fixed column (``'SHIP#SENT#'``), and a
  ``begins_with``/``LIKE 'x%'`` on the next column extends it (when x does not hold that
  column's delimiter);
- a range (<, <=, >, >=, BETWEEN) on the column that ends the template, the columns before it
  fixed, is the same range on the composed value with the prefix added, plus
  ``begins_with(attribute, prefix)``: the planner makes the two one key condition,
  ``BETWEEN prefix || v AND <the last key with the prefix>`` (see `plan.keys.tightest`: the
  one DynamoDB condition that holds exactly the range and stays inside the entity). Only the
  last column: a middle column's text is followed by its delimiter, and ``'a#'`` does not sort
  as ``'a'`` does beside ``'a!'``;
- anything else stays a condition on the column, checked client-side on the value read back
  from the key (``SUBSTR(sk, 9)``): never a wrong answer, only a dearer read.

Which items are the entity's (*membership*) is decided by the table key's templates and the
constants: the conditions that say so are added unless the key conditions already imply them
(a composed equality, a prefix that runs through every literal), so items of other kinds that
share a partition never become rows.

Columns of the table's own key are read back from the key attributes (the templates are the
truth: items written by other tools have them too); every other column is the attribute of
its own name (entity writes store every column, as ElectroDB does). An index's templates are
used where the index holds every item the WHERE can match: its partition key template fixed
by the WHERE, and its ``WHERE`` (if any) implied by the WHERE's fixed values. Then the index
is exact for the entity (its INSERT always writes the index's keys), so ``attribute_exists``
of the index's keys is added for the planner instead of any sparse-index hedging.
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from dynosql import values
from dynosql.entity_model import Access, Column, Entity, Template, literal_text
from dynosql.errors import PlanError
from dynosql.plan import keys as K
from dynosql.sql import ast
from dynosql.sql.text import expression_text, sql_text

MAX_PREFIXES = 100  # composed values an IN expands to (one Query or key each)
_RANGES = ("<", "<=", ">", ">=")


@dataclass
class EntityRead:
    """An entity SELECT and the physical SELECT it compiles to."""

    entity: Entity
    statement: ast.Select  # as written (bound)
    physical: ast.Select
    whole_rows: bool  # SELECT *: each item is decoded into the entity's row
    rewrites: list[str] = field(default_factory=list)  # entity condition → physical
    membership: list[str] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    # the columns the WHERE fixes to listed values (equality, IN): column -> (values, conjuncts)
    fixed: dict[str, tuple[list[Any], list[Any]]] = field(default_factory=dict)

    @property
    def columns(self) -> list[str]:
        """The output columns: SELECT *'s are the key columns (others follow, open)."""
        if self.statement.items is None:
            return list(self.entity.columns)
        return [item.name for item in self.statement.items]

    def lines(self) -> list[str]:
        """EXPLAIN's account of the rewrite, before the physical plan."""
        out = [f"entity {self.entity.name} → table {self.entity.table}"]
        out.extend(f"  {line}" for line in self.rewrites)
        out.extend(f"  membership: {line}" for line in self.membership)
        where = self.physical.where
        out.append(f"  physical WHERE: {sql_text(where) if where is not None else '(none)'}")
        if self.physical.order_by:
            order = ", ".join(
                sql_text(o.expr) + (" DESC" if o.desc else "") for o in self.physical.order_by
            )
            out.append(f"  physical ORDER BY: {order}")
        return out


# --- reading a column back from its key -------------------------------------------------------


def _num(n: int) -> ast.Literal:
    return ast.Literal(Decimal(n))


def _scalar(func: str, *args: Any) -> ast.Scalar:
    return ast.Scalar(func, args, expression_text(func, args))


def _attr(name: str) -> ast.Path:
    return ast.Path((name,), name)


def decoded(template: Template, column: str) -> Any:
    """The column as an expression of the template's attribute: ``SUBSTR(sk, 9)`` for
    ``'INVOICE#' || invoiceId``; ``SPLIT_PART(SUBSTR(sk, 6), '#', 1)`` for the status of
    ``'SHIP#' || status || '#' || shippedAt``. Exact for every item the template fits (each
    column ends at its delimiter's first occurrence, as `Template.decode` reads it)."""
    current: Any = _attr(template.attribute)
    if template.single == column:
        return current
    parts = template.parts
    skip = False
    for i, part in enumerate(parts):
        if skip:
            skip = False
            continue
        if isinstance(part, str):
            current = _scalar("SUBSTR", current, _num(len(part) + 1))
            continue
        following = parts[i + 1] if i + 1 < len(parts) else None
        if part.name == column:
            if following is None:
                return current
            assert isinstance(following, str)
            if i + 2 == len(parts):  # a trailing literal ends the value
                length = _scalar("-", _scalar("LENGTH", current), _num(len(following)))
                return _scalar("SUBSTR", current, _num(1), length)
            return _scalar("SPLIT_PART", current, ast.Literal(following), _num(1))
        assert isinstance(following, str)
        value = _scalar("SPLIT_PART", current, ast.Literal(following), _num(1))
        start = _scalar("+", _scalar("LENGTH", value), _num(len(following) + 1))
        current = _scalar("SUBSTR", current, start)
        skip = True
    raise AssertionError(f"{column} is not in {template.text()}")


def _recomposed(template: Template) -> Any:
    """The template composed back from its decoded columns: equal to the attribute exactly
    when the attribute fits the template (membership where LIKE cannot say it)."""
    pieces: list[Any] = [
        decoded(template, p.name) if isinstance(p, Column) else ast.Literal(p)
        for p in template.parts
    ]
    out = pieces[0]
    for piece in pieces[1:]:
        out = _scalar("||", out, piece)
    return out


# --- the WHERE's conditions on key columns ------------------------------------------------------


@dataclass(frozen=True)
class _Constraint:
    conjunct: Any  # the condition as written (identity: consumed or not)
    op: str  # = in < <= > >= between prefix
    values: tuple[Any, ...]


def _constraint(c: ast.Condition, column: str) -> _Constraint | None:
    m = K.attribute_comparison(c, column)
    if m is not None and m[0] in ("=", *_RANGES):
        return _Constraint(c, m[0], (m[1],))
    listed = K.in_values(c, column)
    if listed is not None:
        return _Constraint(c, "in", tuple(listed))
    if (
        isinstance(c, ast.Between)
        and isinstance(c.operand, ast.Path)
        and c.operand.elements == (column,)
        and isinstance(c.low, ast.Literal)
        and isinstance(c.high, ast.Literal)
    ):
        return _Constraint(c, "between", (c.low.value, c.high.value))
    if (
        isinstance(c, ast.Function)
        and c.name == "begins_with"
        and c.path.elements == (column,)
        and isinstance(c.arg, ast.Literal)
    ):
        return _Constraint(c, "prefix", (c.arg.value,))
    return None


@dataclass
class _Translation:
    conditions: list[ast.Condition] = field(default_factory=list)
    consumed: list[Any] = field(default_factory=list)  # conjuncts it says exactly
    complete: bool = False  # every column fixed: the attribute = (or IN) composed values
    member: bool = False  # the conditions imply the template's constant parts


class _Rewriter:
    def __init__(self, entity: Entity, statement: ast.Select):
        self.entity = entity
        self.statement = statement
        self.hints: list[str] = []
        self.rewrites: list[str] = []
        # a table-key column is read back from the key; others are attributes of their name
        self.decode: dict[str, Any] = {}
        for template in entity.key.templates:
            for column in template.columns:
                self.decode.setdefault(column, decoded(template, column))

    # --- values a template can hold --------------------------------------------------------

    def _usable(self, template: Template, column: str, value: Any) -> bool:
        """Whether `value` can be this column's in `template`; a hint when it never can."""
        if template.single == column:
            ok = values.type_of(value) == template.key_type
            want = {"S": "a string", "N": "a number", "B": "binary"}[template.key_type]
        else:
            ok = isinstance(value, str)
            want = "a string"
        if not ok:
            self._hint(
                f"{column} is {want} ({template.attribute} holds it), so "
                f"{literal_text(value)} never matches it"
                + (
                    f"; quote it: '{values.format_number(value)}'"
                    if isinstance(value, Decimal)
                    else ""
                )
            )
            return False
        delimiter = template.delimiter_after(column)
        if delimiter is not None and isinstance(value, str) and delimiter in value:
            self._hint(
                f"{column} = {literal_text(value)} holds {literal_text(delimiter)}, the delimiter "
                f"after {column} in {template.attribute}: no {self.entity.name} can have it"
            )
            return False
        return True

    def _hint(self, text: str) -> None:
        if text not in self.hints:
            self.hints.append(text)

    def fixed_values(
        self, constraints: dict[str, list[_Constraint]], template: Template | None = None
    ) -> dict[str, tuple[list[Any], list[Any]]]:
        """Columns whose WHERE fixes them to listed values: column → (values, conjuncts)."""
        out: dict[str, tuple[list[Any], list[Any]]] = {}
        for column, found in constraints.items():
            fixing = [c for c in found if c.op in ("=", "in")]
            if not fixing:
                continue
            # the values every fixing conjunct allows (two different equalities: none)
            allowed: list[Any] | None = None
            for c in fixing:
                vals = list(c.values)
                if allowed is None:
                    allowed = vals
                else:
                    allowed = [v for v in allowed if any(values.values_equal(v, w) for w in vals)]
            distinct: list[Any] = []
            for v in allowed or []:
                if not any(values.values_equal(v, d) for d in distinct):
                    distinct.append(v)
            if not distinct:  # equalities that contradict: left to the client (none holds)
                said = " and ".join(dict.fromkeys(sql_text(c.conjunct) for c in fixing))
                self._hint(f"{said} contradict each other: no {self.entity.name} can match")
                continue
            if template is not None and not all(
                self._usable(template, column, v) for v in distinct
            ):
                continue
            out[column] = (distinct, [c.conjunct for c in fixing])
        return out

    # --- one template ----------------------------------------------------------------------

    def translate(
        self, template: Template, constraints: dict[str, list[_Constraint]]
    ) -> _Translation:
        t = _Translation()
        attr = _attr(template.attribute)
        fixed = self.fixed_values({c: constraints.get(c, []) for c in template.columns}, template)
        prefixes = [""]
        open_at: int | None = None
        for i, part in enumerate(template.parts):
            if isinstance(part, str):
                prefixes = [p + part for p in prefixes]
                continue
            if part.name not in fixed:
                open_at = i
                break
            vals, conjuncts = fixed[part.name]
            if len(prefixes) * len(vals) > MAX_PREFIXES:
                open_at = i
                break
            if template.single is not None:
                prefixes = list(vals)
            else:
                prefixes = [p + v for p in prefixes for v in vals]
            t.consumed.extend(conjuncts)
        if open_at is None:  # every column fixed
            t.complete = t.member = True
            if len(prefixes) == 1:
                t.conditions.append(ast.Compare("=", attr, ast.Literal(prefixes[0])))
            else:
                t.conditions.append(ast.In(attr, tuple(ast.Literal(p) for p in prefixes)))
            return t
        column = template.parts[open_at]
        assert isinstance(column, Column)
        last = open_at == len(template.parts) - 1
        delimiter = template.delimiter_after(column.name)
        branches: list[list[ast.Condition]] = [[] for _ in prefixes]
        narrowed = False  # a begins_with beyond the prefix (it implies the prefix)
        for c in constraints.get(column.name, []):
            if c.op in ("=", "in"):
                continue
            if not all(self._usable(template, column.name, v) for v in c.values):
                continue
            if c.op == "prefix":
                if delimiter is not None and delimiter[0] in c.values[0]:
                    continue
                for branch, q in zip(branches, prefixes, strict=True):
                    branch.append(
                        ast.Function("begins_with", attr, ast.Literal(_joined(q, c.values[0])))
                    )
                narrowed = True
            elif not last:
                continue
            elif c.op == "between":
                lo, hi = c.values
                for branch, q in zip(branches, prefixes, strict=True):
                    low, high = _joined(q, lo), _joined(q, hi)
                    branch.append(ast.Between(attr, ast.Literal(low), ast.Literal(high)))
            else:
                for branch, q in zip(branches, prefixes, strict=True):
                    branch.append(ast.Compare(c.op, attr, ast.Literal(_joined(q, c.values[0]))))
            t.consumed.append(c.conjunct)
        for branch, q in zip(branches, prefixes, strict=True):
            if q and not narrowed:
                branch.insert(0, ast.Function("begins_with", attr, ast.Literal(q)))
        branches = [b for b in branches if b]
        if len(branches) == 1:
            t.conditions.extend(branches[0])
        elif branches:
            t.conditions.append(ast.Or(tuple(K.all_of(b) for b in branches)))
        # the prefix runs through every literal when nothing after the open column is one
        t.member = last and bool(branches or template.single is not None)
        return t


def _joined(prefix: str, value: Any) -> Any:
    """The prefix and a column's value (a one-column template's value as it is: a number)."""
    return value if prefix == "" else prefix + value


# --- the rewrite ----------------------------------------------------------------------------------


def rewrite_select(statement: ast.Select, entity: Entity, keyed: bool = False) -> EntityRead:
    """The physical SELECT of an entity SELECT (bound: no parameters left). `keyed`: the
    caller reads it by keys it composes itself (a join's lookup), so nothing is said about a
    WHERE that fixes no partition key."""
    statement = _unqualified(statement, entity)
    r = _Rewriter(entity, statement)
    _name_hints(r, statement)
    conjuncts = K.conjuncts(statement.where)
    constraints: dict[str, list[_Constraint]] = {}
    for c in conjuncts:
        for column in entity.columns:
            found = _constraint(c, column)
            if found is not None:
                constraints.setdefault(column, []).append(found)
    conditions: list[ast.Condition] = []
    consumed: list[Any] = []
    membership: list[str] = []
    # the table's own key: always, and membership from its templates
    partition: list[_Translation] = []
    for template in entity.key.templates:
        t = r.translate(template, constraints)
        if template is entity.key.pk:
            partition.append(t)
        conditions.extend(t.conditions)
        consumed.extend(t.consumed)
        _say(r, t)
        fits = f"{template.attribute} fits {_shape(template)}"
        if template.single is not None:
            continue  # one column alone: any value of the key's type fits it
        if t.member:
            said = " AND ".join(sql_text(c, nested=True) for c in t.conditions)
            membership.append(f"{fits}: {said or 'any value'}")
        else:
            check = _fits(template)
            if check is not None:
                conditions.append(check)
                membership.append(f"{fits}: {sql_text(check)}")
    for name, value in entity.constants:
        conditions.append(ast.Compare("=", _attr(name), ast.Literal(value)))
        membership.append(f"{name} = {literal_text(value)} (a constant of {entity.name})")
    # the indexes that hold every item the WHERE can match
    orders: dict[str, str] = {}  # column -> the sort key attribute whose order is its order
    _order_key(r, entity.key, constraints, orders)
    any_index = False
    for access in entity.indexes:
        usable, why = _usable_index(r, access, constraints)
        any_index = any_index or usable
        if statement.index is not None and access.index == statement.index and not usable:
            raise PlanError(f"FROM {entity.name}.{access.index}: {why}")
        if not usable or (statement.index is not None and access.index != statement.index):
            continue
        for template in access.templates:
            t = r.translate(template, constraints)
            conditions.extend(t.conditions)
            consumed.extend(t.consumed)
            _say(r, t)
            if not t.conditions:  # the index holds it: it holds every item the WHERE matches
                conditions.append(ast.Function("attribute_exists", _attr(template.attribute)))
        _order_key(r, access, constraints, orders)
    rest = [c for c in conjuncts if not any(c is x for x in consumed)]
    partition_keys = {entity.key.pk.attribute, *(a.pk.attribute for a in entity.indexes)}
    if (
        not keyed
        and not any(key.complete for key in partition)
        and not any_index
        and not any(K.equality_value(rest, name)[0] for name in partition_keys)
    ):
        options = [f"{' and '.join(entity.key.pk.columns) or '…'} = … (the table's key)"]
        options += [
            f"{' and '.join(a.pk.columns)} = … (index {a.index}"
            + (f", WHERE {a.where_text})" if a.where_text else ")")
            for a in entity.indexes
            if a.pk.columns
        ]
        r._hint(
            f"no condition fixes a partition key of {entity.name}: {' or '.join(options)} "
            "would make this a Query"
        )
    if statement.index is not None and entity.access(statement.index) is None:
        names = ", ".join(str(a.index) for a in entity.indexes) or "none"
        raise PlanError(
            f"{entity.name} does not live in index {statement.index} (its indexes: {names})"
        )
    # what the templates say of an attribute the WHERE itself sets equal to a value that fits
    # them is said already (as a filter it would keep a LIMIT from being the request's Limit)
    conditions = [c for c in conditions if not _implied(c, rest)]
    conditions.extend(_physical(r, c) for c in rest)
    conditions = _distinct(conditions)  # an index repeating a key template says it again
    physical = dataclasses.replace(
        statement,
        table=entity.table,
        items=None if statement.items is None else tuple(_item(r, i) for i in statement.items),
        where=K.and_of(conditions),
        group_by=tuple(_physical(r, g) for g in statement.group_by),
        having=None if statement.having is None else _physical(r, statement.having),
        order_by=tuple(_order(r, o, orders) for o in statement.order_by),
        alias=None,
    )
    return EntityRead(
        entity,
        statement,
        physical,
        statement.items is None,
        r.rewrites,
        membership,
        r.hints,
        r.fixed_values(constraints),
    )


def _shape(template: Template) -> str:
    return template.text().split(" = ", 1)[1]


def _implied(check: ast.Condition, where: list[ast.Condition]) -> bool:
    """Whether a condition the templates make holds for the value an equality of the WHERE's
    own conjuncts (`where`) gives the attribute."""
    if isinstance(check, ast.Function) and check.name == "begins_with":
        path, prefix = check.path, check.arg.value if isinstance(check.arg, ast.Literal) else None
    elif isinstance(check, ast.Compare) and check.op == "=" and isinstance(check.left, ast.Path):
        path, prefix = check.left, None
    else:
        return False
    found, value, _c = K.equality_value(where, path.root)
    if not found or len(path.elements) != 1:
        return False
    if isinstance(check, ast.Function):
        return isinstance(value, str) and isinstance(prefix, str) and value.startswith(prefix)
    return isinstance(check.right, ast.Literal) and values.values_equal(value, check.right.value)


def _fits(template: Template) -> ast.Condition | None:
    """The condition that an attribute fits a template, where its constant parts say
    something (None: one column alone, any value of the key's type)."""
    if template.single is not None:
        return None
    attr = _attr(template.attribute)
    constant = template.constant
    if constant is not None:
        return ast.Compare("=", attr, ast.Literal(constant))
    pattern = template.like_pattern()
    if pattern is not None and pattern.endswith("%") and pattern.count("%") == 1:
        return ast.Function("begins_with", attr, ast.Literal(pattern[:-1]))
    if pattern is not None:
        return ast.Like(attr, pattern)
    return ast.Compare("=", attr, _recomposed(template))


def _say(r: _Rewriter, t: _Translation) -> None:
    """The rewrite of the WHERE's conditions on columns, for EXPLAIN (once each; not where a
    column is its attribute, nothing rewritten)."""
    written = " AND ".join(dict.fromkeys(sql_text(c, nested=True) for c in t.consumed))
    said = " AND ".join(sql_text(c, nested=True) for c in t.conditions)
    line = f"{written} → {said}"
    if written and said and written != said and line not in r.rewrites:
        r.rewrites.append(line)


def _distinct(conditions: list[ast.Condition]) -> list[ast.Condition]:
    out: list[ast.Condition] = []
    for c in conditions:
        if c not in out:
            out.append(c)
    return out


def _usable_index(
    r: _Rewriter, access: Access, constraints: dict[str, list[_Constraint]]
) -> tuple[bool, str]:
    """Whether the index holds every item the WHERE can match: its partition key template
    fixed, and its WHERE implied by the fixed values."""
    fixed = r.fixed_values(constraints)
    missing = [c for c in access.pk.columns if c not in fixed]
    if missing:
        return False, f"its partition key {access.pk.attribute} needs {' and '.join(missing)} = …"
    if access.where is None:
        return True, ""
    from dynosql.evaluate.predicate import matches
    from dynosql.plan.expressions import paths_in

    roots = {str(p.root) for p in paths_in(access.where)}
    unknown = sorted(roots - set(fixed))
    why = f"index {access.index} holds only the items WHERE {access.where_text}"
    if unknown:
        return False, f"{why}, and the WHERE does not fix {', '.join(unknown)}"
    names = sorted(roots)
    combos = itertools.islice(itertools.product(*(fixed[n][0] for n in names)), MAX_PREFIXES + 1)
    rows = [dict(zip(names, combo, strict=True)) for combo in combos]
    if len(rows) > MAX_PREFIXES or not all(matches(access.where, row) for row in rows):
        return False, f"{why}, which the WHERE does not imply"
    return True, ""


def _order_key(
    r: _Rewriter, access: Access, constraints: dict[str, list[_Constraint]], orders: dict[str, str]
) -> None:
    """The column that ends the access's sort key template, the columns before it fixed to
    one value each: its order is the sort key's (ORDER BY it is ScanIndexForward)."""
    sk = access.sk
    if sk is None or not sk.columns:
        return
    column = sk.columns[-1]
    if not isinstance(sk.parts[-1], Column):
        return
    fixed = r.fixed_values({c: constraints.get(c, []) for c in sk.columns[:-1]}, sk)
    if all(c in fixed and len(fixed[c][0]) == 1 for c in sk.columns[:-1]):
        orders.setdefault(column, sk.attribute)


def _unqualified(statement: ast.Select, entity: Entity) -> ast.Select:
    """``i.invoiceId`` / ``invoice.invoiceId`` → ``invoiceId``."""
    names = {entity.name} | ({statement.alias} if statement.alias else set())

    def strip(node: Any) -> Any:
        if (
            isinstance(node, ast.Path)
            and len(node.elements) > 1
            and node.root in names
            and isinstance(node.elements[1], str)
        ):
            rest = node.elements[1:]
            return ast.Path(rest, node.text.split(".", 1)[1], node.pos, node.quoted)
        return None

    unqualified: ast.Select = ast.rewrite(statement, strip)
    return unqualified


def _name_hints(r: _Rewriter, statement: ast.Select) -> None:
    """A name that is not a key column but is spelt like one (its case, a letter): the
    column the user probably meant. Other names are attributes of their own name, and may
    well be; a key column is known."""
    from dynosql.sql.spelling import closest

    entity = r.entity
    owned = set(entity.attributes)
    seen: set[str] = set()

    def visit(node: Any) -> Any:
        if isinstance(node, ast.Path) and isinstance(node.root, str):
            root = node.root
            if root in entity.columns or root in owned or root in seen:
                return None
            seen.add(root)
            near = closest(root, entity.columns, n=1, cutoff=0.8)
            if near:
                r._hint(f"no column {root} in {entity.name}; did you mean {near[0]}?")
        return None

    ast.rewrite(statement, visit)


def _physical(r: _Rewriter, node: Any) -> Any:
    """A condition or expression with each table-key column replaced by its decoding."""

    def replace(n: Any) -> Any:
        if isinstance(n, ast.Path) and n.root in r.decode:
            if not n.is_attribute:
                raise PlanError(
                    f"{n.text}: {n.root} is a key column of {r.entity.name} (text read from a "
                    "key): it has no paths",
                    n.pos.line or None,
                    n.pos.col or None,
                )
            return r.decode[str(n.root)]
        if isinstance(n, ast.Aggregate) and n.path is not None and n.path.root in r.decode:
            return dataclasses.replace(n, path=None, arg=replace(n.path))
        if isinstance(n, ast.Like | ast.IsNull | ast.Function) and n.path.root in r.decode:
            return _over_expression(n, replace(n.path))
        return None

    return ast.rewrite(node, replace)


def _over_expression(condition: Any, operand: Any) -> Any:
    """A path-only condition (LIKE, IS NULL, a condition function) over an expression."""
    true = ast.Literal(True)
    if isinstance(condition, ast.Like):
        return ast.Compare("=", _scalar("LIKE", operand, ast.Literal(condition.pattern)), true)
    if isinstance(condition, ast.IsNull):
        return ast.Compare("=", _scalar("IS_NULL", operand), true)
    name = condition.name
    if name == "begins_with" and condition.arg is not None:
        return ast.Compare("=", _scalar("STARTS_WITH", operand, condition.arg), true)
    if name == "attribute_exists":  # a key column is always there
        return ast.Compare("=", _scalar("IS_NULL", operand), ast.Literal(False))
    if name == "attribute_not_exists":
        return ast.Compare("=", _scalar("IS_NULL", operand), true)
    raise PlanError(
        f"{name}() takes an attribute path; {sql_text(operand)} is a key column read from its key"
    )


def _item(r: _Rewriter, item: ast.SelectItem) -> ast.SelectItem:
    expr = _physical(r, item.expr)
    if expr is item.expr:
        return item
    return ast.SelectItem(expr, item.alias or item.name)


def _order(r: _Rewriter, order: ast.OrderItem, orders: dict[str, str]) -> ast.OrderItem:
    expr = order.expr
    if isinstance(expr, ast.Path) and expr.is_attribute and expr.root in orders:
        return dataclasses.replace(order, expr=_attr(orders[str(expr.root)]))
    return dataclasses.replace(order, expr=_physical(r, expr))
