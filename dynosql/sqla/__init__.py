"""SQLAlchemy 2 support: the ``dynosql://`` and ``dynosql+local://`` dialects (entry points
``sqlalchemy.dialects`` in pyproject.toml). Imported only by SQLAlchemy, never by the CLI."""
