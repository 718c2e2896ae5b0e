"""SQLAlchemy's pytest plugin, for its dialect compliance suite only (this directory is not
collected by the main suite: tests/conftest.py ignores it)."""

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
