"""Engines for statements past one client's Scan: a table export read by DuckDB on this
machine (``export``), or by Amazon Athena (``athena``), priced against the Scan (``prices``)."""
