"""ConsumedCapacity for the embedded backend, computed as DynamoDB bills it.

moto answers every request that asks for ConsumedCapacity with a constant. The embedded server
(`dynosql.local.embedded`) runs moto in this process, so it can do better: `Meter` wraps moto's
WSGI app and, for each request that asks (ReturnConsumedCapacity TOTAL or INDEXES), works out
what DynamoDB would charge by the rules of `dynosql.plan.cost` (which cites AWS's pages) and
puts that figure in the answer, in DynamoDB's own shape (with the Table / GlobalSecondaryIndexes
/ LocalSecondaryIndexes detail for INDEXES). Every answer carries the `HEADER`, by which the
Session knows the figures are real (`capabilities.from_response`).

What it needs to know, it asks moto through the same app, in-process, as DynamoDB requests:

- a Query or Scan page is billed for the items it evaluated before its filter and projection
  (moto applies Limit and its page cut before the filter, as DynamoDB does), index entries when
  it reads an index; their sizes, summed, once per page. moto's table records them as it reads
  the page for the request itself (`moto_reads.evaluated_items`); where it cannot (a legacy
  QueryFilter/ScanFilter, another moto), the request is sent again without filter and
  projection;
- GetItem, BatchGetItem and TransactGetItems read the whole items of the keys asked for;
- a write reads the items it touches before and after (strongly consistent), so that the table
  is billed for the larger image and each index for the entry it puts, changes or removes.

DescribeTable answers carry the table's and each index's size (ItemCount, TableSizeBytes,
IndexSizeBytes), which moto leaves at 0, measured from the items (DynamoDB's own are up to six
hours old; these are current), so that estimates stand on the same sizes whatever reads a
guard allows.

The figures are computed under one lock, so that no other request changes an item between a
write and the reads that price it. A failed request carries no ConsumedCapacity, as DynamoDB's
error answers do not, with one exception: a PutItem, UpdateItem or DeleteItem whose condition
failed is billed by DynamoDB all the same ("If a ConditionExpression evaluates to false during a
conditional write, DynamoDB still consumes write capacity from the table", .../developerguide/
WorkingWithItems.html#WorkingWithItems.ConditionalWrites.ReturnConsumedCapacity, and
.../developerguide/read-write-operations.html#write-operation-consumption), so its figure goes
back in the `FAILED_WRITE_HEADER` of the error answer, for the writer's ledger. (A cancelled
transaction is billed too, by the same pages; it is not priced here yet.)
"""

from __future__ import annotations

import io
import json
import re
import threading
import zlib
from collections.abc import Callable, Iterable
from decimal import Decimal
from typing import Any

from dynosql import values
from dynosql.dynamo import wiresize
from dynosql.dynamo.capabilities import FAILED_WRITE_HEADER
from dynosql.dynamo.capabilities import METERED_HEADER as HEADER
from dynosql.local import moto_reads, wsgi_client
from dynosql.plan import cost
from dynosql.plan.schema import IndexInfo, TableInfo, table_info

TARGET_PREFIX = "DynamoDB_20120810."
READS = {"GetItem", "BatchGetItem", "TransactGetItems", "Query", "Scan"}
WRITES = {"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"}
SCHEMA_CHANGES = {"CreateTable", "UpdateTable", "DeleteTable"}
SINGLE_WRITES = {"PutItem", "UpdateItem", "DeleteItem"}
CONDITION_FAILED = "ConditionalCheckFailedException"
# request fields that do not change which items a Query or Scan evaluates, only what it returns
_RETURN_SHAPING = (
    "FilterExpression",
    "ProjectionExpression",
    "AttributesToGet",
    "Select",
    "QueryFilter",
    "ScanFilter",
    "ConditionalOperator",
    "ReturnConsumedCapacity",
)

_PLACEHOLDER = re.compile(r"[#:][A-Za-z0-9_]+")

Wire = dict[str, Any]
Call = Callable[[str, dict[str, Any]], dict[str, Any]]


class Meter:
    """WSGI middleware: moto's app with DynamoDB's ConsumedCapacity (see module docstring)."""

    def __init__(self, app: Any, store: Callable[[], Any] | None = None):
        self.app = app
        # moto's DynamoDB backend of this server (same process): whole items are read from it
        # directly, as moto's own response serializer takes milliseconds per item
        self.store = store
        self.lock = threading.RLock()
        self.tables: dict[str, TableInfo] = {}
        self.sizes: dict[tuple[str, int], _Sizes] = {}  # (table, moto's ItemCount): measured

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        target = str(environ.get("HTTP_X_AMZ_TARGET", ""))
        operation = target[len(TARGET_PREFIX) :] if target.startswith(TARGET_PREFIX) else ""
        if operation in SCHEMA_CHANGES or operation in WRITES:
            with self.lock:
                self.sizes.clear()
                if operation in SCHEMA_CHANGES:
                    self.tables.clear()
        if operation == "DescribeTable":
            return self._describe(environ, start_response)
        mode = None
        body = b""
        params: Any = None
        if operation in READS or operation in WRITES:
            body = read_body(environ)
            try:
                params = json.loads(body)
            except ValueError:
                params = None
            if isinstance(params, dict):
                mode = params.get("ReturnConsumedCapacity")
        if mode not in ("TOTAL", "INDEXES"):
            if body:
                _set_body(environ, body)
            return self.app(environ, _tagged(start_response))
        with self.lock:
            try:
                bill = _Bill(self, environ, operation, params)
            except (LookupError, TypeError, ValueError):  # no such table, a malformed request:
                _set_body(environ, body)  # moto answers it with DynamoDB's error
                return self.app(environ, _tagged(start_response))
            with moto_reads.evaluated_items() as pages:
                status, headers, out = self._send(environ, body)
            if not _legacy_filter(params):
                bill.evaluated = _wire_page(pages)
            if status.startswith("200"):
                answer = json.loads(out)
                answer["ConsumedCapacity"] = bill.consumed(answer, mode)
                out = json.dumps(answer).encode()
                headers = _with_body_headers(headers, out)
            elif operation in SINGLE_WRITES and CONDITION_FAILED.encode() in out:
                consumed = bill.failed_write(mode)
                headers = [*headers, (FAILED_WRITE_HEADER, json.dumps(consumed))]
        _tagged(start_response)(status, headers)
        return [out]

    def _describe(self, environ: dict[str, Any], start_response: Any) -> Any:
        """DescribeTable with the sizes measured from the items (see module docstring)."""
        with self.lock:
            status, headers, out = self._send(environ, read_body(environ))
            if status.startswith("200"):
                answer = json.loads(out)
                description = answer.get("Table") or {}
                if description.get("TableStatus") == "ACTIVE":
                    self._measured(environ, description)
                    out = json.dumps(answer).encode()
                    headers = _with_body_headers(headers, out)
        _tagged(start_response)(status, headers)
        return [out]

    def _measured(self, environ: dict[str, Any], description: Wire) -> None:
        name = description["TableName"]
        key = (name, int(description.get("ItemCount") or 0))
        sizes = self.sizes.get(key)
        if sizes is None:
            info = table_info(description)
            sizes = _Sizes()
            for item in self.every_item(environ, name):
                sizes.add(item, info)
            self.sizes[key] = sizes
        description["ItemCount"], description["TableSizeBytes"] = sizes.table
        for field in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
            for index in description.get(field) or []:
                count, size = sizes.indexes.get(index["IndexName"], (0, 0))
                index["ItemCount"], index["IndexSizeBytes"] = count, size

    def _send(self, environ: dict[str, Any], body: bytes) -> tuple[str, list[Any], bytes]:
        """Call moto's app with `body` as the request; its status, headers and whole body."""
        _set_body(environ, body)
        return wsgi_client.call(self.app, environ)

    def every_item(self, environ: dict[str, Any], name: str) -> Iterable[Wire]:
        """Every item of table `name`, whole."""
        stored = _stored_items(self.store, name)
        if stored is not None:
            yield from stored
            return
        params: Wire = {"TableName": name}
        while True:
            page = self.ask(environ, "Scan", params)
            yield from page.get("Items", [])
            if not page.get("LastEvaluatedKey"):
                return
            params["ExclusiveStartKey"] = page["LastEvaluatedKey"]

    def recorded(
        self, environ: dict[str, Any], operation: str, params: dict[str, Any]
    ) -> list[Wire] | None:
        """Send a Query or Scan to moto and return the items its table evaluated for it (whole,
        or index entries), recorded in this thread as it read them
        (`moto_reads.evaluated_items`); None where they cannot be recorded (another moto)."""
        with moto_reads.evaluated_items() as pages:
            self.ask(environ, operation, params)
        return _wire_page(pages)

    def ask(self, environ: dict[str, Any], operation: str, params: dict[str, Any]) -> Wire:
        """One DynamoDB request to moto, in-process (as the client's request, another target)."""
        inner = dict(environ)
        inner["HTTP_X_AMZ_TARGET"] = TARGET_PREFIX + operation
        status, _, out = self._send(inner, json.dumps(params).encode())
        answer: Wire = json.loads(out) if out else {}
        if not status.startswith("200"):
            raise LookupError(f"{operation}: {answer.get('message') or status}")
        return answer

    def table(self, environ: dict[str, Any], name: str) -> TableInfo:
        info = self.tables.get(name)
        if info is None:
            info = table_info(self.ask(environ, "DescribeTable", {"TableName": name})["Table"])
            self.tables[name] = info
        return info


class _Sizes:
    """Items and bytes of a table and of each of its indexes (entries: keys and projection)."""

    def __init__(self) -> None:
        self.table = (0, 0)
        self.indexes: dict[str, tuple[int, int]] = {}

    def add(self, item: Wire, info: TableInfo) -> None:
        self.table = (self.table[0] + 1, self.table[1] + wiresize.item_size(item))
        for index in info.indexes:
            entry = cost.index_entry(item, index, info)
            if entry and index.name is not None:
                count, size = self.indexes.get(index.name, (0, 0))
                self.indexes[index.name] = (count + 1, size + wiresize.item_size(entry))


class _Bill:
    """The capacity of one request: what it needs to know before it runs, and the figure after."""

    def __init__(self, meter: Meter, environ: dict[str, Any], operation: str, params: Wire):
        self.meter, self.operation, self.params = meter, operation, params
        self.environ = dict(environ)
        # a Query/Scan page's items as moto evaluated them for the request itself (whole, or
        # index entries), recorded as it ran (moto_reads.evaluated_items); else asked again
        self.evaluated: list[Wire] | None = None
        self.before: dict[str, list[tuple[Wire, Wire | None]]] = {}  # table: (key, old item)
        if operation in WRITES:
            for table, keys in self._written_keys().items():
                self.before[table] = list(zip(keys, self._items(table, keys), strict=True))

    def ask(self, operation: str, params: Wire) -> Wire:
        return self.meter.ask(self.environ, operation, params)

    def table(self, name: str) -> TableInfo:
        return self.meter.table(self.environ, name)

    # --- the figure -----------------------------------------------------------------------

    def consumed(self, answer: Wire, mode: str) -> Any:
        charges = self._charges(answer)
        shaped = [_shape(name, charge, mode) for name, charge in charges.items()]
        if self.operation in ("BatchGetItem", "BatchWriteItem") or "Transact" in self.operation:
            return shaped  # one per table
        return shaped[0]

    def _charges(self, answer: Wire) -> dict[str, cost.Charge]:
        op, params = self.operation, self.params
        if op in ("Query", "Scan"):
            return {params["TableName"]: self._page(answer)}
        if op == "GetItem":
            item = self._items(params["TableName"], [params["Key"]])[0]
            units = cost.item_read_units([_size(item)], bool(params.get("ConsistentRead")))
            return {params["TableName"]: cost.Charge(table=units)}
        if op == "BatchGetItem":
            return self._batch_get(answer)
        if op == "TransactGetItems":
            return self._transact_get()
        return self._writes(answer)

    def failed_write(self, mode: str) -> Wire:
        """A PutItem/UpdateItem/DeleteItem whose condition failed, as DynamoDB bills it (see the
        module docstring): 1 KB units of the item's size, at least one (no item: one unit);
        for a PutItem the larger of the stored item and the one it tried to write ("The write
        capacity units consumed will be 310 KB for the new item", read-write-operations.html).
        An UpdateItem's would-be image is not built here: the stored item's size (the rule of
        WorkingWithItems.html). Nothing changed, so no index is written."""
        ((name, pairs),) = self.before.items()
        sizes = [_size(old) or 0 for _key, old in pairs]
        if self.operation == "PutItem":
            sizes.append(wiresize.item_size(self.params.get("Item") or {}))
        charge = cost.Charge(table=values.write_units(max(sizes, default=0)))
        return _shape(name, charge, mode)

    # --- reads ----------------------------------------------------------------------------

    def _page(self, answer: Wire) -> cost.Charge:
        """A Query or Scan page: the items it evaluated, before the filter, summed and rounded
        once; through an index, its entries; an LSI read of unprojected attributes adds a fetch
        of each whole item from the table."""
        params = self.params
        table = self.table(params["TableName"])
        consistent = bool(params.get("ConsistentRead"))
        index = table.index(params["IndexName"]) if params.get("IndexName") else table.base
        returned = _unfiltered_keys(params, answer, table)
        if returned is not None:  # the answer holds every item evaluated, and their keys
            evaluated, keys = returned
            complete = index.name is None and not _shaped(params)
        else:
            evaluated = (
                self.evaluated if self.evaluated is not None else self._evaluated(table, index)
            )
            keys = [{k: item[k] for k in table.keys.names if k in item} for item in evaluated]
            complete = index.name is None  # moto's items of a table read are whole
        whole = evaluated if complete else self._items(table.name, keys)
        entries = [cost.index_entry(item, index, table) if item else {} for item in whole]
        units = cost.page_read_units(map(wiresize.item_size, entries), consistent)
        charge = cost.Charge()
        charge.add_index(index, units)
        if index.kind == "lsi" and keys and _fetches(params, index, table):
            charge.table += cost.item_read_units(map(_size, whole), consistent)
        return charge

    def _evaluated(self, table: TableInfo, index: IndexInfo) -> list[Wire]:
        """The items the Query/Scan page evaluated (whole, or at least their keys) when they were
        not recorded as the request ran: the request sent again without filter or projection,
        as Select=COUNT (moto's answer is then a few bytes; its serializer takes a millisecond
        per item), with the items moto's backend evaluated recorded on the way; where that is
        not possible, asking for the keys in the answer."""
        request = _evaluating(self.params)
        recorded = self.meter.recorded(self.environ, self.operation, {**request, "Select": "COUNT"})
        if recorded is None:
            names = list(dict.fromkeys([*table.keys.names, *index.keys.names]))
            aliases = {f"#dynosqlk{i}": name for i, name in enumerate(names)}
            keyed = {**request, "ProjectionExpression": ", ".join(aliases)}
            given = request.get("ExpressionAttributeNames", {})
            keyed["ExpressionAttributeNames"] = {**given, **aliases}
            try:
                recorded = self.ask(self.operation, keyed).get("Items", [])
            except LookupError:  # moto fails to project some items (capabilities.py)
                recorded = self.ask(self.operation, request).get("Items", [])
            if index.name is None:  # keys only: the whole items from the table
                keys = [{k: i[k] for k in table.keys.names if k in i} for i in recorded]
                recorded = [i for i in self._items(table.name, keys) if i is not None]
        return recorded

    def _batch_get(self, answer: Wire) -> dict[str, cost.Charge]:
        """Each key asked for (less those left unprocessed): its whole item, rounded on its own;
        a key that matched nothing costs one unit."""
        unprocessed = answer.get("UnprocessedKeys") or {}
        out: dict[str, cost.Charge] = {}
        for name, spec in self.params.get("RequestItems", {}).items():
            left = unprocessed.get(name, {}).get("Keys") or []
            keys = [k for k in spec.get("Keys", []) if k not in left]
            items = self._items(name, keys)
            units = cost.item_read_units(map(_size, items), bool(spec.get("ConsistentRead")))
            out[name] = cost.Charge(table=units)
        return out

    def _transact_get(self) -> dict[str, cost.Charge]:
        out: dict[str, cost.Charge] = {}
        for action in self.params.get("TransactItems", []):
            get = action.get("Get") or {}
            item = self._items(get["TableName"], [get["Key"]])[0]
            charge = out.setdefault(get["TableName"], cost.Charge())
            charge.table += values.transactional_read_units(_size(item))
        return out

    # --- writes ---------------------------------------------------------------------------

    def _written_keys(self) -> dict[str, list[Wire]]:
        """The keys of the items the write request changes, per table."""
        op, params = self.operation, self.params
        out: dict[str, list[Wire]] = {}
        if op in ("PutItem", "UpdateItem", "DeleteItem"):
            name = params["TableName"]
            item = params.get("Item") if op == "PutItem" else params.get("Key")
            out[name] = [self._key(name, item or {})]
        elif op == "BatchWriteItem":
            for name, requests in params.get("RequestItems", {}).items():
                for request in requests:
                    put, delete = request.get("PutRequest"), request.get("DeleteRequest")
                    item = put.get("Item") if put else (delete or {}).get("Key")
                    out.setdefault(name, []).append(self._key(name, item or {}))
        elif op == "TransactWriteItems":
            # a ConditionCheck changes no item and is not billed here (DynamoDB Local bills it
            # nothing; dynosql sends none)
            for action in params.get("TransactItems", []):
                for kind in ("Put", "Update", "Delete"):
                    spec = action.get(kind)
                    if spec:
                        name = spec["TableName"]
                        item = spec.get("Item") if kind == "Put" else spec.get("Key")
                        out.setdefault(name, []).append(self._key(name, item or {}))
        return out

    def _key(self, table: str, item: Wire) -> Wire:
        return {k: item[k] for k in self.table(table).keys.names if k in item}

    def _writes(self, answer: Wire) -> dict[str, cost.Charge]:
        transactional = self.operation == "TransactWriteItems"
        unprocessed = answer.get("UnprocessedItems") or {}
        out: dict[str, cost.Charge] = {}
        for name, pairs in self.before.items():
            table = self.table(name)
            left = [self._key(name, _request_item(r)) for r in unprocessed.get(name, [])]
            pairs = [(key, old) for key, old in pairs if key not in left]
            after = self._items(name, [key for key, _ in pairs])
            charge = out.setdefault(name, cost.Charge())
            for (_, old), new in zip(pairs, after, strict=True):
                charge.add(cost.item_write(old, new, table, wiresize.item_size, transactional))
        return out

    # --- items ----------------------------------------------------------------------------

    def _items(self, table: str, keys: list[Wire]) -> list[Wire | None]:
        """The whole stored items of `keys` (None where there is none), strongly consistent."""
        stored = _stored_get(self.meter.store, table, keys)
        if stored is not None:
            return stored
        found: dict[str, Wire] = {}
        names = self.table(table).keys.names
        unique = list({_key_text(k): k for k in keys}.values())
        for start in range(0, len(unique), 100):
            chunk = unique[start : start + 100]
            spec = {"Keys": chunk, "ConsistentRead": True}
            answer = self.ask("BatchGetItem", {"RequestItems": {table: spec}})
            for item in answer.get("Responses", {}).get(table, []):
                found[_key_text({n: item[n] for n in names if n in item})] = item
        return [found.get(_key_text(k)) for k in keys]


def _stored_items(store: Callable[[], Any] | None, table: str) -> list[Wire] | None:
    """Every item of `table` straight from moto's backend; None when that is not possible."""
    if store is None:
        return None
    try:
        return [item.to_json()["Attributes"] for item in store().get_table(table).all_items()]
    except (AttributeError, KeyError, TypeError):  # a moto whose internals differ
        return None


def _stored_get(store: Callable[[], Any] | None, table: str, keys: list[Wire]) -> Any:
    """The items of `keys` straight from moto's backend (None for a missing one); None when
    that is not possible."""
    if store is None:
        return None
    try:
        backend = store()
        out: list[Wire | None] = []
        for key in keys:
            item = backend.get_item(table, key)
            out.append(None if item is None else item.to_json()["Attributes"])
        return out
    except (AttributeError, KeyError, TypeError):  # a moto whose internals differ
        return None


def _shaped(params: Wire) -> bool:
    """Whether a Query/Scan's answer leaves out items or attributes it evaluated."""
    return any(field in params for field in _RETURN_SHAPING[:-1])


def _unfiltered_keys(
    params: Wire, answer: Wire, table: TableInfo
) -> tuple[list[Wire], list[Wire]] | None:
    """The items of an answer and their table keys when no filter dropped any (every item
    evaluated is in it) and each carries its keys; None otherwise (send it again)."""
    filtered = any(f in params for f in ("FilterExpression", "QueryFilter", "ScanFilter"))
    if filtered or params.get("Select") == "COUNT" or "Items" not in answer:
        return None
    items = answer["Items"]
    names = table.keys.names
    if not all(name in item for item in items for name in names):
        return None
    return items, [{name: item[name] for name in names} for item in items]


def _wire_page(pages: list[list[Any]]) -> list[Wire] | None:
    """The one page a request read (`moto_reads.evaluated_items`) as wire items; None unless
    exactly one was recorded."""
    if len(pages) != 1:
        return None
    return [item.to_json()["Attributes"] for item in pages[0]]


def _legacy_filter(params: Wire) -> bool:
    """A QueryFilter or ScanFilter: moto applies these while it evaluates the page, so the items
    it keeps are not all the items evaluated (the request is then sent again unfiltered)."""
    return "QueryFilter" in params or "ScanFilter" in params


def _evaluating(params: Wire) -> Wire:
    """A Query/Scan that returns every item the original evaluates, whole (index entries
    through an index): the same keys, Limit, start and segment, without filter or projection."""
    out = {k: v for k, v in params.items() if k not in _RETURN_SHAPING}
    used = set(_PLACEHOLDER.findall(str(params.get("KeyConditionExpression", ""))))
    for field in ("ExpressionAttributeNames", "ExpressionAttributeValues"):
        mapping = out.pop(field, None)
        kept = {k: v for k, v in (mapping or {}).items() if k in used}
        if kept:
            out[field] = kept
    return out


def _fetches(params: Wire, index: IndexInfo, table: TableInfo) -> bool:
    """Whether a read through local secondary index `index` asks for an attribute it does not
    project (the whole item is then fetched from the table: Select's documentation, and
    .../developerguide/LSI.html#LSI.ThroughputConsiderations). DynamoDB Local charges the fetch
    for any ProjectionExpression; AWS's documentation only for unprojected attributes."""
    if index.projection == "ALL":
        return False
    select = params.get("Select")
    if select == "ALL_ATTRIBUTES":
        return True
    if select == "COUNT":
        return False
    names = _projected_names(params)
    return names is not None and any(not index.holds(n, table.keys) for n in names)


def _projected_names(params: Wire) -> list[str] | None:
    """The top-level attribute names a request's projection asks for (None: no projection)."""
    if "AttributesToGet" in params:
        return list(params["AttributesToGet"])
    text = params.get("ProjectionExpression")
    if not text:
        return None
    aliases = params.get("ExpressionAttributeNames") or {}
    out = []
    for path in str(text).split(","):
        head = path.strip().split(".", 1)[0].split("[", 1)[0].strip()
        out.append(aliases.get(head, head))
    return out


def _request_item(request: Wire) -> Wire:
    put, delete = request.get("PutRequest"), request.get("DeleteRequest")
    return dict(put.get("Item", {})) if put else dict((delete or {}).get("Key", {}))


def _size(item: Wire | None) -> int | None:
    return None if item is None else wiresize.item_size(item)


def _key_text(key: Wire) -> str:
    return json.dumps(key, sort_keys=True)


def _number(units: Decimal) -> float:
    return float(units)


def _shape(table: str, charge: cost.Charge, mode: str) -> Wire:
    """DynamoDB's ConsumedCapacity structure for one table."""
    out: Wire = {"TableName": table, "CapacityUnits": _number(charge.total)}
    if mode == "INDEXES":
        out["Table"] = {"CapacityUnits": _number(charge.table)}
        for field, indexes in (
            ("GlobalSecondaryIndexes", charge.gsi),
            ("LocalSecondaryIndexes", charge.lsi),
        ):
            if indexes:
                out[field] = {n: {"CapacityUnits": _number(u)} for n, u in indexes.items()}
    return out


def read_body(environ: dict[str, Any]) -> bytes:
    """The request's body, read once and put back for the app behind."""
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    stream = environ.get("wsgi.input")
    body = stream.read(length) if stream is not None and length > 0 else b""
    _set_body(environ, body)
    return bytes(body)


def _set_body(environ: dict[str, Any], body: bytes) -> None:
    environ["wsgi.input"] = io.BytesIO(body)
    environ["CONTENT_LENGTH"] = str(len(body))


def _with_body_headers(headers: Iterable[Any], body: bytes) -> list[Any]:
    """`headers` for a new body: its length and DynamoDB's CRC32 (botocore checks it)."""
    out = [(k, v) for k, v in headers if k.lower() not in ("content-length", "x-amz-crc32")]
    out.append(("Content-Length", str(len(body))))
    out.append(("x-amz-crc32", str(zlib.crc32(body) & 0xFFFFFFFF)))
    return out


def _tagged(start_response: Any) -> Any:
    """`start_response` that adds `HEADER` to the answer."""

    def start(status: str, headers: list[Any], exc_info: Any = None) -> Any:
        headers = [*headers, (HEADER, "computed")]
        if exc_info is not None:
            return start_response(status, headers, exc_info)
        return start_response(status, headers)

    return start
