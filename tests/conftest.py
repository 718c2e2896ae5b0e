"""Session-wide DynamoDB servers for the tests (see tests/backends.py).

Fixtures:

- ``moto_backend``, ``dynalite_backend``, ``ddblocal_backend``: one empty server each,
  started when a test first asks for it, shared by all tests: moto one per session (per xdist
  worker, in its process), dynalite and DynamoDB Local one per run, whose workers share it
  (`shared_servers`). Tests that create tables use unique names (``unique_name()``; 3+
  characters, as dynalite and AWS require) and may delete them afterwards.
- ``backend``: session-scoped, parametrized over all three (ids ``moto``, ``dynalite``,
  ``ddblocal``: DynamoDB Local).
- ``examples_backend``: session-scoped, parametrized over all three, with the example
  datasets loaded once when a test first asks: on moto a server of its own per worker (which
  holds only the examples), on dynalite and DynamoDB Local the ``backend`` servers themselves,
  loaded once for the run (SHOW TABLES there lists other tests' tables too). Treat the example
  tables as read-only: other workers read them at the same time.
- ``table_name``: a fresh unique table name (``backends.unique_name()``).

dynalite and DynamoDB Local are never silently skipped: if node_modules (or Java) is missing
the fixture fails and says to run ``npm ci`` (or install Java >= 17).
"""

from __future__ import annotations

import atexit
import gc
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

# Cache compiled bytecode even where PYTHONDONTWRITEBYTECODE is set (this machine and CI set
# it): without the cache every xdist worker recompiles dynosql and re-rewrites the asserts of
# every test module (8.7 s instead of 2.5 s of CPU to collect), and every `dynosql` child
# process the tests start compiles dynosql again.
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
if not os.environ.get("PYTEST_XDIST_WORKER"):
    # …and the run's first process compiles dynosql once, before xdist starts its workers, so
    # that a fresh clone's workers do not each compile it at the same moment (a cold start of
    # three workers: 21 s of CPU to collect, 18 s with this; nothing to do once compiled)
    import compileall

    compileall.compile_dir(Path(__file__).resolve().parent.parent / "dynosql", quiet=1)

# dynosql's cache (parsed -e/-f scripts, botocore's trimmed endpoint data: user_cache.py) goes
# to a directory of this test run, not the developer's ~/.cache: set here, before xdist starts
# its workers, so they and every dynosql child process share it; removed at the end by the
# process that made it
if "DYNOSQL_TEST_CACHE" not in os.environ:
    _cache = tempfile.mkdtemp(prefix="dynosql-test-cache-")
    os.environ["DYNOSQL_TEST_CACHE"] = os.environ["XDG_CACHE_HOME"] = _cache
    # …and so do the journals of sessions made without a journal directory (and the REPL's
    # history): a test's UNDO LAST must never find another run's, or a user's, journal
    os.environ["XDG_STATE_HOME"] = os.path.join(_cache, "state")
    atexit.register(shutil.rmtree, _cache, True)

# No instance-metadata lookups from botocore (slow timeouts off EC2); clients get explicit
# dummy credentials anyway.
os.environ["AWS_EC2_METADATA_DISABLED"] = "true"

from backends import BACKEND_NAMES, Backend, start, unique_name  # noqa: E402
from shared_servers import ENVIRONMENT, Shared  # noqa: E402

# The run's dynalite and DynamoDB Local, shared by its xdist workers (tests/shared_servers.py),
# say where they listen in a directory of this run: made, like the cache, before the workers
if ENVIRONMENT not in os.environ:
    os.environ[ENVIRONMENT] = tempfile.mkdtemp(prefix="dynosql-test-servers-")
    atexit.register(shutil.rmtree, os.environ[ENVIRONMENT], True)

# SQLAlchemy's compliance suite runs in a pytest process of its own, with SQLAlchemy's plugin
# (tests/test_sqlalchemy_suite.py): never collected here
collect_ignore = ["sqla_suite"]


def _keep_out_of_the_collector() -> None:
    """Move every object alive now into the garbage collector's permanent generation
    (`gc.freeze`): what a worker holds for the whole run (the modules, the collected tests, a
    server's tables and their example items, half a million objects) is then no longer walked
    by each full collection. Without it the workers of the fast loop spent about 8 s each of
    their ~33 s of CPU in the collector, three quarters of it in full collections of objects
    that live to the end. Objects made later are collected as usual."""
    gc.collect()
    gc.freeze()


def pytest_collection_finish(session: pytest.Session) -> None:
    """Freeze what collection made; then collect the young generation every 7,000 new objects
    instead of 700 (most of a test's objects are freed by their reference counts before that)
    and a full collection a fifth as often: the collector's time per fast-loop worker fell from
    ~4.5 s (frozen, default thresholds) to ~2.5 s."""
    _keep_out_of_the_collector()
    gc.set_threshold(7000, 10, 50)


def _serve(name: str, examples: bool = False) -> Iterator[Backend]:
    server = start(name)
    try:
        if examples:
            server.load_examples()
        _keep_out_of_the_collector()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def moto_backend() -> Iterator[Backend]:
    yield from _serve("moto")


_SHARED: dict[str, Shared] = {}


def _share(name: str) -> Iterator[Backend]:
    """The run's one server called `name` (`shared_servers`), however many workers ask."""
    shared = _SHARED[name] = Shared(name)
    server = shared.join()
    try:
        _keep_out_of_the_collector()
        yield server
    finally:
        shared.leave()


@pytest.fixture(scope="session")
def dynalite_backend() -> Iterator[Backend]:
    yield from _share("dynalite")


@pytest.fixture(scope="session")
def ddblocal_backend() -> Iterator[Backend]:
    yield from _share("ddblocal")


@pytest.fixture(scope="session", params=BACKEND_NAMES)
def backend(request: pytest.FixtureRequest) -> Backend:
    return request.getfixturevalue(f"{request.param}_backend")


def _with_examples(server: Backend) -> Backend:
    """The same server with the example datasets, loaded the first time a worker of the run
    asks for them: one dynalite and one DynamoDB Local for the run (a second DynamoDB Local
    is a second JVM to start and warm up, about 3 s of CPU, and 5 s more to load)."""
    if not server.datasets:
        _SHARED[server.name].with_examples(server)
        _keep_out_of_the_collector()
    return server


@pytest.fixture(scope="session")
def moto_examples_backend() -> Iterator[Backend]:
    """A moto server of its own (in-process, cheap to start): the REPL and CLI tests that list
    the tables see the four examples only."""
    yield from _serve("moto", examples=True)


@pytest.fixture(scope="session")
def dynalite_examples_backend(dynalite_backend: Backend) -> Backend:
    return _with_examples(dynalite_backend)


@pytest.fixture(scope="session")
def ddblocal_examples_backend(ddblocal_backend: Backend) -> Backend:
    return _with_examples(ddblocal_backend)


@pytest.fixture(scope="session", params=BACKEND_NAMES)
def examples_backend(request: pytest.FixtureRequest) -> Backend:
    return request.getfixturevalue(f"{request.param}_examples_backend")


@pytest.fixture(scope="session")
def design_tables(moto_backend: Backend) -> dict[tuple[str, str], str]:
    """The corpus of single-table designs (tests/data/designs), loaded into moto once:
    (file, the table's name in the model) -> its name on the server."""
    from designs import corpus

    return {(model, t.name): t.create(moto_backend) for model, t in corpus()}


@pytest.fixture
def table_name() -> str:
    """A fresh unique table name for a test that creates its own table."""
    return unique_name()


def _fast_loop(config: pytest.Config) -> bool:
    return (config.option.markexpr or "").replace(" ", "") == "notslow"


def _draw_a_tenth(items: list[pytest.Item]) -> None:
    """Every property test (hypothesis) draws a tenth of its examples, at least 10: the fast
    loop tries each property; the full suite draws them all."""
    from hypothesis import settings

    done: set[int] = set()
    for item in items:
        test = getattr(item, "obj", None)
        drawn = getattr(test, "_hypothesis_internal_use_settings", None)
        if drawn is None or id(test) in done:
            continue
        done.add(id(test))
        fewer = max(10, drawn.max_examples // 10)
        if fewer < drawn.max_examples:
            test._hypothesis_internal_use_settings = settings(drawn, max_examples=fewer)  # type: ignore[union-attr]


def _backend_ids(item: pytest.Item) -> set[str]:
    callspec = getattr(item, "callspec", None)
    return set(callspec.id.split("-")) if callspec is not None else set()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The fast loop (`-m "not slow"`) runs the execution tests on moto only; the full suite
    (CI) runs them on dynalite and DynamoDB Local too. Slow: every run on DynamoDB Local (a
    JVM), and the dynalite run of a test that also runs on moto. A test that runs on dynalite
    and not on moto (the cost test: moto reports no real capacity) keeps its dynalite run in
    the fast loop, as before DynamoDB Local joined. In the fast loop the property tests draw
    a tenth of their examples (`_draw_a_tenth`)."""
    if _fast_loop(config):
        _draw_a_tenth(items)
    on_moto = {getattr(item, "function", None) for item in items if "moto" in _backend_ids(item)}
    for item in items:
        ids = _backend_ids(item)
        if "ddblocal" in ids or ("dynalite" in ids and getattr(item, "function", None) in on_moto):
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto``: one worker more than the processors this run may use. A worker often
    waits on another process (dynalite, DynamoDB Local's JVM, a ``dynosql`` child), and the
    extra worker keeps the cores busy meanwhile: the full suite took 234 s with 2 workers and
    220 s with 3 (219 s with 4) on the 2-core machine, one run each; the fast loop 43-52 s with
    2 and 41-47 s with 3 (same CPU, three runs each at load average 2-3; with other test runs
    loading the machine to 10-15, 2 workers spent less CPU, but that measured the load).
    PYTEST_XDIST_AUTO_NUM_WORKERS still decides when set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return cores + 1
