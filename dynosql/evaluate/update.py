"""An UPDATE's changes applied to a decoded item, as DynamoDB applies its UpdateExpression.

Used for the item after a write: UpdateItem returns one image (ALL_OLD, exact, atomic with
the write), and the image after it follows from the old one and the changes. That gives
``RETURNING *`` and the undo journal's "as the statement left it" check without a second
read. Should this ever disagree with DynamoDB, undo lists the item as changed since and
leaves it alone: a wrong guess here can never overwrite anything.

Semantics: SET evaluates every right-hand side on the old item; ``a + b``/``a - b`` need two
numbers; ``if_not_exists(p, v)`` is p's value, else v; ``list_append(a, b)`` joins two lists;
ADD adds a number (a missing attribute counts as 0) or unions a set; DELETE removes elements
from a set (an empty set disappears); REMOVE deletes a path (a list element shifts the rest).
"""

from __future__ import annotations

import copy
from decimal import Decimal
from typing import Any

from dynosql import values
from dynosql.evaluate.predicate import resolve
from dynosql.sql import ast
from dynosql.values import MISSING

# exact: every sum of two DynamoDB numbers (1E-130 to 1E+126) fits in 300 digits, and a result
# DynamoDB cannot store is refused (NumberRefused), never rounded
_CONTEXT = values.DECIMAL_CONTEXT


class UpdateFailed(ValueError):
    """The change cannot apply to this item (DynamoDB answers ValidationException)."""


class NumberRefused(UpdateFailed):
    """``a + b`` / ``a - b`` / ADD whose exact result DynamoDB cannot store: more than 38
    significant digits (``100 + 1E-36``) or beyond 1E-130 … 9.99…E+125. DynamoDB refuses the
    write ("DynamoDB only supports precision up to 38 digits"); moto rounds it silently and
    dynalite stores it, so dynosql decides it itself wherever the operands were read."""


def apply_update(item: dict[str, Any], assignments: tuple[ast.Assignment, ...]) -> dict[str, Any]:
    """The item after the changes (a new dict; `item` is not modified)."""
    old = item
    new = copy.deepcopy(item)
    removals = []
    for a in assignments:
        if a.action == "set":
            _put(new, a.path.elements, _value(a.value, old))
        elif a.action == "add":
            _put(new, a.path.elements, _add(resolve(old, a.path), _literal(a.value)))
        elif a.action == "delete":
            remaining = _delete(resolve(old, a.path), _literal(a.value))
            if remaining is MISSING:
                removals.append(a.path.elements)
            else:
                _put(new, a.path.elements, remaining)
        elif a.action == "remove":
            removals.append(a.path.elements)
    # list elements are removed from the highest index down, so earlier indexes stay valid
    for elements in sorted(removals, key=_removal_order, reverse=True):
        _remove(new, elements)
    return new


def modified(
    old: dict[str, Any] | None,
    new: dict[str, Any] | None,
    assignments: tuple[ast.Assignment, ...],
    before: bool,
) -> dict[str, Any]:
    """PartiQL's ``RETURNING MODIFIED OLD *`` (`before`) or ``MODIFIED NEW *`` of one item
    (UpdateItem's UPDATED_OLD / UPDATED_NEW), as DynamoDB Local answers: each top-level
    attribute a change touched, whole (``SET m.b.x = 5`` returns all of ``m``). A change
    touches its attribute in the image before the write where its path was there (a SET of a
    new attribute or of a new map key has no old value); after it, where its path is there
    (a REMOVE: where the path was there before). Empty when none (PartiQL returns no row)."""
    image = old if before else new
    if image is None:
        return {}
    touched: dict[str, None] = {}
    for a in assignments:
        seen_in = old if before or a.action == "remove" else new
        if seen_in is not None and resolve(seen_in, a.path) is not MISSING:
            touched[str(a.path.root)] = None
    return {name: image[name] for name in touched if name in image}


def refused_number(item: dict[str, Any], assignments: tuple[ast.Assignment, ...]) -> str | None:
    """Why DynamoDB would refuse these changes on `item` for a number it cannot store (see
    NumberRefused), or None. `item` may hold only some attributes (those a guarded UPDATE
    read): a change whose operands it lacks is left to the server."""
    for a in assignments:
        try:
            if a.action == "set":
                _value(a.value, item)
            elif a.action == "add":
                _add(resolve(item, a.path), _literal(a.value))
        except NumberRefused as err:
            return str(err)
        except UpdateFailed:
            continue
    return None


def missing_read(
    item: dict[str, Any], assignments: tuple[ast.Assignment, ...]
) -> tuple[ast.Assignment, ast.Path] | None:
    """The first SET whose value reads a path `item` lacks (outside ``if_not_exists``), and
    that path: DynamoDB refuses such a write. None when every path it reads is there."""
    for a in assignments:
        if a.action != "set":
            continue
        for path in paths_read(a.value):
            if resolve(item, path) is MISSING:
                return a, path
    return None


def paths_read(operand: Any) -> list[ast.Path]:
    """The paths a SET value needs present (``if_not_exists`` makes its own optional)."""
    if isinstance(operand, ast.Path):
        return [operand]
    if isinstance(operand, ast.ListAppend | ast.Arith):
        return paths_read(operand.left) + paths_read(operand.right)
    return []


def _removal_order(elements: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple((1, e) if isinstance(e, int) else (0, 0) for e in elements)


def _literal(operand: Any) -> Any:
    if isinstance(operand, ast.Literal):
        return operand.value
    raise UpdateFailed(f"not a value: {operand!r}")


def _value(operand: Any, old: dict[str, Any]) -> Any:
    if isinstance(operand, ast.Literal):
        return operand.value
    if isinstance(operand, ast.Path):
        found = resolve(old, operand)
        if found is MISSING:
            raise UpdateFailed(f"{operand.text} is missing")
        return found
    if isinstance(operand, ast.IfNotExists):
        found = resolve(old, operand.path)
        return _literal(operand.value) if found is MISSING else found
    if isinstance(operand, ast.ListAppend):
        left, right = _value(operand.left, old), _value(operand.right, old)
        if not isinstance(left, list) or not isinstance(right, list):
            raise UpdateFailed("list_append takes two lists")
        return left + right
    if isinstance(operand, ast.Arith):
        left, right = _value(operand.left, old), _value(operand.right, old)
        if values.type_of(left) != "N" or values.type_of(right) != "N":
            raise UpdateFailed("+ and - take two numbers")
        result = _CONTEXT.add(left, right) if operand.op == "+" else _CONTEXT.subtract(left, right)
        return stored_number(result, f"{_number_text(left)} {operand.op} {_number_text(right)}")
    raise UpdateFailed(f"cannot evaluate {operand!r}")


def _add(current: Any, amount: Any) -> Any:
    code = values.type_of(amount)
    if code == "N":
        if current is MISSING:
            return amount
        if values.type_of(current) != "N":
            raise UpdateFailed("ADD of a number to a non-number")
        result = _CONTEXT.add(current, amount)
        return stored_number(result, f"ADD {_number_text(amount)} to {_number_text(current)}")
    if current is MISSING:
        return amount
    if values.type_of(current) != code:
        raise UpdateFailed("ADD of a set to a value of another type")
    return type(amount)(current | amount)


def stored_number(result: Decimal, written: str) -> Decimal:
    """`result` as DynamoDB would store it, or NumberRefused naming what gave it."""
    try:
        return values.number(values.format_number(result))
    except ValueError:
        text = values.format_number(result)
        shown = text if len(text) <= 50 else f"{text[:24]}…{text[-12:]}"
        digits = len(result.normalize(_CONTEXT).as_tuple().digits)
        raise NumberRefused(
            f"{written} is {shown} ({digits} significant digits): DynamoDB stores numbers of "
            f"at most {values.MAX_NUMBER_DIGITS} significant digits from 1E-130 to "
            "9.99…E+125, and refuses the write"
        ) from None


def _number_text(value: Decimal) -> str:
    text = values.format_number(value)
    return text if len(text) <= 24 else str(value.normalize(_CONTEXT))


def _delete(current: Any, elements: Any) -> Any:
    if current is MISSING:
        return MISSING
    if values.type_of(current) != values.type_of(elements):
        raise UpdateFailed("DELETE from a value that is not a set of that type")
    remaining = type(current)(current - elements)
    return remaining if remaining else MISSING


def _put(item: Any, elements: tuple[Any, ...], value: Any) -> None:
    parent = _parent(item, elements)
    last = elements[-1]
    if isinstance(last, int):
        if not isinstance(parent, list):
            raise UpdateFailed("a list index into a non-list")
        if last >= len(parent):
            parent.append(value)  # DynamoDB appends past the end
        else:
            parent[last] = value
    else:
        if not isinstance(parent, dict):
            raise UpdateFailed("a path through a non-map")
        parent[last] = value


def _remove(item: Any, elements: tuple[Any, ...]) -> None:
    try:
        parent = _parent(item, elements)
    except UpdateFailed:
        return
    last = elements[-1]
    if isinstance(last, int):
        if isinstance(parent, list) and last < len(parent):
            del parent[last]
    elif isinstance(parent, dict):
        parent.pop(last, None)


def _parent(item: Any, elements: tuple[Any, ...]) -> Any:
    current = item
    for e in elements[:-1]:
        if isinstance(e, int):
            if not isinstance(current, list) or e >= len(current):
                raise UpdateFailed("the document path does not exist")
            current = current[e]
        else:
            if not isinstance(current, dict) or e not in current:
                raise UpdateFailed("the document path does not exist")
            current = current[e]
    return current
