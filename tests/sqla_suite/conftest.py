"""SQLAlchemy's pytest plugin, for its dialect compliance suite only (this directory is not
collected by the main suite: tests/conftest.py ignores it).

With ``DYNOSQL_SQLA_SUITE_MOTO=1`` (as tests/test_sqlalchemy_suite.py runs it) the suite's
database is a moto server in this process, which answers the dialect's clients in the calling
thread (tests/backends.py's moto: the same moto and metering as over HTTP, at less than half
the round trip, over the ~2,700 requests of the suite); else ``--dburi``, or setup.cfg's
``dynosql+local://``."""

import os
import sys
from pathlib import Path

import pytest
from sqlalchemy.dialects import registry

sys.path.insert(0, str(Path(__file__).resolve().parent))  # requirements.py

registry.register("dynosql", "dynosql.sqla.dialect", "DynosqlDialect")
# the plugin spells a URL's driver out: dynosql:// is dynosql+dynosql://
registry.register("dynosql.dynosql", "dynosql.sqla.dialect", "DynosqlDialect")
registry.register("dynosql.local", "dynosql.sqla.dialect", "LocalDialect")
pytest.register_assert_rewrite("sqlalchemy.testing.assertions")

from sqlalchemy.testing.plugin.pytestplugin import *  # noqa: E402, F403
from sqlalchemy.testing.plugin.pytestplugin import (  # noqa: E402
    pytest_collection_modifyitems as _sqla_modify,
)
from sqlalchemy.testing.plugin.pytestplugin import (  # noqa: E402
    pytest_configure as _sqla_configure,
)
from unsupported import CLASSES, PREFIXES, UNSUPPORTED  # noqa: E402


def pytest_collection_modifyitems(session, config, items):  # noqa: F811
    """SQLAlchemy's own reorganisation, then a skip with its reason for each test of
    unsupported.py (a class's name carries the backend after an underscore)."""
    _sqla_modify(session, config, items)
    for item in items:
        cls = item.cls.__name__.split("_")[0] if item.cls is not None else ""
        test = getattr(item, "originalname", item.name)
        reason = (
            CLASSES.get(cls)
            or UNSUPPORTED.get((cls, item.name))
            or UNSUPPORTED.get((cls, test))
            or next(
                (r for (c, p), r in PREFIXES.items() if c == cls and item.name.startswith(p)), None
            )
        )
        if reason:
            item.add_marker(pytest.mark.skip(reason=reason))


def pytest_configure(config):  # noqa: F811
    """The moto server of this process as the suite's database (see the module docstring),
    then SQLAlchemy's own configuration."""
    if os.environ.get("DYNOSQL_SQLA_SUITE_MOTO"):
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/backends.py
        from backends import start

        server = start("moto")
        config.add_cleanup(server.stop)
        config.option.dburi = [
            f"dynosql://?endpoint_url={server.endpoint_url}&journal_dir=off&confirm=yes"
        ]
    _sqla_configure(config)
