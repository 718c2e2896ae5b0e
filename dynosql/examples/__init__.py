"""The example datasets behind ``dynosql --local`` (and their .sql scripts)."""
