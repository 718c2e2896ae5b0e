"""Statement kinds: one module per statement family, each saying how to run and EXPLAIN it."""
