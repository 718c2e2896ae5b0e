"""What dynosql's dialect supports, for SQLAlchemy's compliance suite: SQLAlchemy's defaults,
less what DynamoDB (or dynosql's one-table SQL) cannot do, each with the reason."""

from sqlalchemy.testing import exclusions
from sqlalchemy.testing.requirements import SuiteRequirements

CLOSED = exclusions.closed()
OPEN = exclusions.open()


class Requirements(SuiteRequirements):
    # DynamoDB generates no keys and has no row ids: every item is written with its key
    autoincrement_insert = property(lambda self: CLOSED)
    autoincrement_without_sequence = property(lambda self: CLOSED)
    implements_get_lastrowid = property(lambda self: CLOSED)
    # a table declares its key and nothing else: no other constraint exists to create or reflect
    foreign_keys = property(lambda self: CLOSED)
    self_referential_foreign_keys = property(lambda self: CLOSED)
    foreign_key_ddl = property(lambda self: CLOSED)
    foreign_key_constraint_reflection = property(lambda self: CLOSED)
    on_update_cascade = property(lambda self: CLOSED)
    recursive_fk_cascade = property(lambda self: CLOSED)
    named_constraints = property(lambda self: CLOSED)
    implicitly_named_constraints = property(lambda self: CLOSED)
    unique_constraint_reflection = property(lambda self: CLOSED)
    # one table per statement: no subqueries, UNION, CTEs; DynamoDB pages by key, no OFFSET
    subqueries = property(lambda self: CLOSED)
    update_where_target_in_subquery = property(lambda self: CLOSED)
    insert_from_select = property(lambda self: CLOSED)
    order_by_col_from_union = property(lambda self: CLOSED)
    parens_in_union_contained_select_w_limit_offset = property(lambda self: CLOSED)
    parens_in_union_contained_select_wo_limit_offset = property(lambda self: CLOSED)
    offset = property(lambda self: CLOSED)
    sql_expression_limit_offset = property(lambda self: CLOSED)
    # no temporary tables, no views
    temporary_tables = property(lambda self: CLOSED)
    temp_table_reflection = property(lambda self: CLOSED)
    views = property(lambda self: CLOSED)
    # a GSI's key has no direction
    indexes_with_ascdesc = property(lambda self: CLOSED)
    reflect_indexes_with_ascdesc = property(lambda self: CLOSED)
    # SQL-92's cursor text: in dynosql's SQL `t.x` of one table is a document path (DynamoDB's
    # maps), so the dialect writes one table's columns unqualified (a join's by their source),
    # and quotes every name (DynamoDB's reserved words)
    standard_cursor_sql = property(lambda self: CLOSED)
    # what SQLAlchemy's defaults leave off and dynosql has: numbers are exact Decimals of up to
    # 38 significant digits end to end, written and read in E notation too
    precision_numerics_many_significant_digits = property(lambda self: OPEN)
    precision_numerics_enotation_small = property(lambda self: OPEN)
