"""The tests' client pool (tests/client_pool.py): a client is handed out again only when nothing
holds it and it is as it was made."""

from __future__ import annotations

import gc
from typing import Any

from backends import Backend
from client_pool import ClientPool

from dynosql.session import Session


def _taker(backend: Backend) -> tuple[ClientPool, Any]:
    pool = ClientPool()
    return pool, lambda: pool.take("key", backend._new_client)


def test_a_free_client_is_handed_out_again_and_a_held_one_is_not(moto_backend: Backend) -> None:
    pool, take = _taker(moto_backend)
    first = take()
    held = take()  # `first` is still held here
    assert held is not first and pool.made == 2
    first_id = id(first)
    del first, held
    again = take()
    assert id(again) == first_id and pool.reused == 1
    assert again.list_tables()["TableNames"] is not None


def test_a_client_a_test_added_a_handler_to_is_never_handed_out_again(
    moto_backend: Backend,
) -> None:
    pool, take = _taker(moto_backend)
    client = take()
    seen: list[str] = []
    client.meta.events.register("before-call.dynamodb", lambda **kw: seen.append("call"))
    client.list_tables()
    assert seen == ["call"]
    del client
    for _ in range(3):
        fresh = take()
        fresh.list_tables()
        del fresh
    assert seen == ["call"]  # the handler never ran for the clients handed out after it
    assert pool.made == 2 and pool.reused == 2  # one new client, then that one again


def test_a_client_with_an_attribute_set_is_retired(moto_backend: Backend) -> None:
    pool, take = _taker(moto_backend)
    client = take()
    client.scan = lambda **kw: {"Items": []}  # replaced, never put back
    del client
    fresh = take()
    assert "scan" not in vars(fresh) and pool.made == 2


def test_dynosqls_own_handlers_are_taken_off_before_it_is_handed_out_again(
    moto_backend: Backend,
) -> None:
    pool, take = _taker(moto_backend)
    client = take()
    made_with = set(client.meta.events._emitter._unique_id_handlers)
    session = Session(client)
    assert list(session.execute("SHOW TABLES")) is not None
    added = set(client.meta.events._emitter._unique_id_handlers) - made_with
    assert added and all(u.startswith("dynosql-") for u in added)
    client_id = id(client)
    del session, client
    gc.collect()
    again = take()
    assert id(again) == client_id and pool.reused == 1
    assert set(again.meta.events._emitter._unique_id_handlers) == made_with
    # and a Session on it registers them again and reads as before
    assert list(Session(again).execute("SHOW TABLES")) is not None


def test_a_client_whose_retry_quota_was_spent_is_retired(moto_backend: Backend) -> None:
    pool, take = _taker(moto_backend)
    client = take()
    handler = client.meta.events._emitter._unique_id_handlers["retry-config-dynamodb"]["handler"]
    quota = handler.__self__._retry_quota._quota
    assert quota.acquire(14)  # as one failed attempt spends it
    del client, handler
    fresh = take()
    assert pool.made == 2 and pool.reused == 0
    assert fresh.meta.events._emitter._unique_id_handlers  # a whole new client
    quota.release(14)
    del fresh


def test_a_configured_client_is_its_own(moto_backend: Backend) -> None:
    one = moto_backend.client(read_timeout=7)
    two_id = id(moto_backend.client(read_timeout=7))
    assert id(one) != two_id and one.meta.config.read_timeout == 7
