"""moto's condition and update evaluation made to answer as DynamoDB does (embedded backend only).

moto evaluates a ConditionExpression / FilterExpression on plain Python values
(``DynamoType.cast_value``): a missing attribute and NULL both become ``None``, BOOL ``True``
equals the number 1, ``begins_with``/``contains`` of a Binary are false, and ``size()`` of a
number or of a missing attribute raises (HTTP 500).
Its ``SET a = b`` stores b's own object under a, so a later in-place DELETE from a changes b too.
It applies an UpdateExpression's actions one by one to the stored item, so an action that fails
(``ADD n :set`` on a number) left the ones before it written.
The write fuzzer (tests/test_write_fuzz.py) found each; DynamoDB Local and dynalite answer as
DynamoDB's documentation says. :func:`follow_dynamodb_conditions` replaces the few methods
involved, once per process, on moto's own classes (moto runs in this process only as dynosql's
embedded DynamoDB); a moto whose internals differ is left as it is.

The rules, from AWS's documentation:

- Comparisons (``=``, ``<>``, ``IN``, ``<`` …, ``BETWEEN``) compare typed values: "a = b: true if a is equal
  to b"; values of different types are never equal, and ``<``/``<=``/``>``/``>=`` apply to
  Number, String and Binary of the same type only (Binary by its bytes, unsigned). A missing
  attribute is no value at all: ``a = :v`` is false and ``a <> :v`` true for any ``:v``, NULL
  included (ConditionExpression reference, "Comparison operator and function reference":
  https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.OperatorsAndFunctions.html).
- ``begins_with(path, substr)``: String or Binary; ``contains(path, operand)``: a substring of
  a String, a subsequence of a Binary, an element of a set or list (same page, and the legacy
  BEGINS_WITH / CONTAINS operators of the Condition reference: "If the target attribute of the
  comparison is of type Binary, then the operator looks for a subsequence of the target that
  matches the input", https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Condition.html).
- ``size(path)``: String (length), Binary (bytes), sets, List and Map (elements). Any other type,
  or a missing attribute, has no size: the comparison it is in is false (``<>`` true), as for a
  missing attribute; DynamoDB Local and dynalite answer so.
- ``SET a = b`` copies b's value
  (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.UpdateExpressions.html).
- An UpdateItem is atomic: it applies all of its UpdateExpression or nothing ("UpdateItem …
  edits an existing item's attributes", one operation; DynamoDB Local leaves the item as it
  was when an action is refused).
"""

from __future__ import annotations

import base64
import copy
import functools
from decimal import Decimal
from typing import Any

# A typed value: (DynamoDB type code, a Python value comparable within that type); None: missing.
Typed = tuple[str, Any] | None


@functools.cache
def follow_dynamodb_conditions() -> None:
    """Install the patches described in the module docstring (once per process)."""
    try:
        from moto.dynamodb import comparisons as c
        from moto.dynamodb.models.dynamo_type import DynamoType
        from moto.dynamodb.parsing.executors import SetExecutor, UpdateExpressionExecutor
    except ImportError:  # pragma: no cover - another moto layout
        return
    if not all(
        hasattr(c, n) for n in ("AttributePath", "AttributeValue", "FuncSize", "FuncBetween")
    ):
        return  # pragma: no cover - another moto layout

    def typed_of(value: Any) -> Typed:
        """A moto ``DynamoType`` as a typed value, recursively (list elements keep their types)."""
        kind = value.type
        if kind == "N":
            return ("N", Decimal(value.value))
        if kind == "B":
            return ("B", _bytes(value.value))
        if kind in ("SS", "NS", "BS"):
            element = kind[0]
            return (kind, frozenset(typed_of(DynamoType({element: v})) for v in value.value))
        if kind == "L":
            return ("L", tuple(typed_of(DynamoType(v)) for v in value.value))
        if kind == "M":
            return ("M", frozenset((k, typed_of(DynamoType(v))) for k, v in value.value.items()))
        if kind == "NULL":
            return ("NULL", True)
        return (kind, value.value)  # S, BOOL

    def typed(operand: Any, item: Any) -> Typed:
        """What a condition's operand stands for in ``item``: an attribute path, a literal
        (``:value``) or ``size(path)``."""
        if isinstance(operand, c.AttributePath):
            found = operand._get_attr(item)
            return None if found is None else typed_of(found)
        if isinstance(operand, c.AttributeValue):
            return typed_of(DynamoType({operand.type: operand.value}))
        if isinstance(operand, c.FuncSize):
            return size_of(operand.attr, item)
        raise TypeError(f"not an operand: {operand!r}")  # pragma: no cover

    def size_of(operand: Any, item: Any) -> Typed:
        value = typed(operand, item)
        if value is None or value[0] in ("N", "BOOL", "NULL"):
            return None
        return ("N", Decimal(len(value[1])))

    def equal(op: Any, item: Any) -> bool:
        left, right = typed(op.lhs, item), typed(op.rhs, item)
        return left is not None and left == right

    def ordered(compare: Any) -> Any:
        def expr(op: Any, item: Any) -> bool:
            left, right = typed(op.lhs, item), typed(op.rhs, item)
            if left is None or right is None or left[0] != right[0]:
                return False
            return left[0] in ("N", "S", "B") and bool(compare(left[1], right[1]))

        return expr

    def between(func: Any, item: Any) -> bool:
        value, low, high = (typed(o, item) for o in (func.attr, func.start, func.end))
        if value is None or low is None or high is None or not value[0] == low[0] == high[0]:
            return False
        return value[0] in ("N", "S", "B") and bool(low[1] <= value[1] <= high[1])

    def is_in(func: Any, item: Any) -> bool:
        left = typed(func.attr, item)
        return left is not None and any(left == typed(v, item) for v in func.possible_values)

    def begins_with(func: Any, item: Any) -> bool:
        whole, prefix = typed(func.attr, item), typed(func.substr, item)
        if whole is None or prefix is None or whole[0] != prefix[0] or whole[0] not in ("S", "B"):
            return False
        return bool(whole[1].startswith(prefix[1]))

    def contains(func: Any, item: Any) -> bool:
        whole, part = typed(func.attr, item), typed(func.operand, item)
        if whole is None or part is None:
            return False
        kind = whole[0]
        if kind in ("S", "B"):
            return part[0] == kind and part[1] in whole[1]
        if kind in ("SS", "NS", "BS", "L"):
            return part in whole[1]
        return False

    def size(func: Any, item: Any) -> Any:
        """moto's own callers (a comparison) read ``size`` through :func:`typed`; this is for
        any other: the number, or None when the attribute has no size."""
        found = size_of(func.attr, item)
        return None if found is None else found[1]

    replaced: dict[Any, Any] = {
        c.OpEqual: equal,
        c.OpNotEqual: lambda op, item: not equal(op, item),
        c.OpLessThan: ordered(lambda a, b: a < b),
        c.OpLessThanOrEqual: ordered(lambda a, b: a <= b),
        c.OpGreaterThan: ordered(lambda a, b: a > b),
        c.OpGreaterThanOrEqual: ordered(lambda a, b: a >= b),
        c.FuncBetween: between,
        c.FuncIn: is_in,
        c.FuncBeginsWith: begins_with,
        c.FuncContains: contains,
        c.FuncSize: size,
    }
    for cls, expr in replaced.items():
        cls.expr = expr

    # The value a SET action stores (its execute() only; ADD also calls SetExecutor.set and
    # then fills the stored set in place, so set() itself must keep storing what it is given)
    moto_value = SetExecutor.get_action_value

    def a_copy_of_the_value(executor: Any) -> Any:
        return copy.deepcopy(moto_value(executor))

    SetExecutor.get_action_value = a_copy_of_the_value  # type: ignore[method-assign,assignment]

    # All or nothing: the item's attributes as they were, should an action fail
    moto_execute = UpdateExpressionExecutor.execute

    def all_or_nothing(executor: Any, node: Any = None) -> None:
        if node is not None:  # moto's own recursion into the expression's parts
            return moto_execute(executor, node)
        attrs = executor.item.attrs
        before = copy.deepcopy(attrs)
        try:
            return moto_execute(executor)
        except BaseException:
            attrs.clear()
            attrs.update(before)
            raise

    UpdateExpressionExecutor.execute = all_or_nothing  # type: ignore[method-assign,assignment]


def _bytes(value: Any) -> bytes:
    """A Binary as moto holds it (bytes: its server decodes the wire's base64; text is decoded
    here in case a moto keeps it)."""
    if isinstance(value, bytes | bytearray):
        return bytes(value)
    return base64.b64decode(value)
