"""The tests SQLAlchemy expects a third-party dialect to pass, as SQLAlchemy ships them;
requirements.py turns off what DynamoDB cannot do."""

from sqlalchemy.testing.suite import *  # noqa: F403
