"""Client-side evaluation with DynamoDB's semantics: the one evaluator for every step the
server does not do (residual conditions, ORDER BY, DISTINCT, GROUP BY and aggregates)."""
