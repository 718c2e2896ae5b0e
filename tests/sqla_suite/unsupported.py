"""The suite's tests that are not run, each with the reason, applied by conftest.py (skipped
with it, and counted apart by tests/test_sqlalchemy_suite.py). The requirement switches in
requirements.py turn off whole capabilities; these are the tests SQLAlchemy gates by no
requirement. Two kinds:

- DYNAMODB: what a DynamoDB table cannot be or do (a table without a key, a name of under 3
  characters or with blanks, schemas, views, constraints beyond the key, keys it generates,
  columns beyond the key, an order of attributes, OFFSET).
- DEPRECATED: a test of what SQLAlchemy itself deprecates and announces it will refuse.

A key names a test (every parametrisation of it), one parametrisation (``test_x[a-b]``), or
the parametrisations that begin so (``test_x[False-``: `PREFIXES`).
"""

DYNAMODB = "DynamoDB: "
DEPRECATED = "SQLAlchemy's deprecated behaviour: "

NO_KEY = DYNAMODB + "its table has no primary key (every DynamoDB table has a partition key)"
SHORT_NAME = DYNAMODB + "a table named in under 3 characters (table names are 3 to 255)"
NAME_CHARACTERS = (
    DYNAMODB + "table and index names hold letters, digits, _ . and - only (these hold quotes "
    "and blanks)"
)
# JoinTest's tables are named a and b; its joins on the foreign key (b read, then a looked up
# by key: a.id = b.a_id) run on tables named aaa and bbb and give the rows the tests expect
JOIN_SHORT_NAME = SHORT_NAME + "; its join on the foreign key runs (a lookup by key)"
JOIN_ON_CONSTANT = SHORT_NAME + (
    "; and its ON is true or false, a join of every pair or of none, which neither an item "
    "collection nor a lookup by key serves (dynosql refuses it)"
)
LONG_NAME = DYNAMODB + "an index named in more than 255 characters (index names are 3 to 255)"
THREE_KEYS = DYNAMODB + "a primary key of three columns (a key is one or two attributes)"
OFFSET = DYNAMODB + "OFFSET (DynamoDB pages by key, not by position)"
GENERATED_KEY = DYNAMODB + "an INSERT without the key (DynamoDB generates no keys)"
ONE_TABLE = DYNAMODB + "UNION, a subquery or EXISTS over another SELECT (one table a statement)"
VIEWS = DYNAMODB + "views (DynamoDB has none)"
COLUMNS = DYNAMODB + (
    "the columns it reflects are declared ones, but a table declares only its key attributes, "
    "typed S, N or B (a number is no INTEGER or FLOAT); its other attributes are its items', "
    "and these tables hold none"
)
INDEXES = DYNAMODB + (
    "the indexes it reflects are unique or of three columns (no GSI is either), on a table "
    "without a key too"
)
ATTRIBUTE_ORDER = DYNAMODB + (
    "an item's attributes have no order (SELECT * gives the keys, then the rest by name), and "
    "the test reads SELECT * by the position of the Table's columns"
)
DISTINCT_ON = DEPRECATED + (
    "it expects DISTINCT ON dropped with a deprecation warning, which SQLAlchemy says will "
    "raise CompileError in a future release; dynosql's dialect raises it now rather than "
    "answer another question"
)

# the whole class
CLASSES = {"QuotedNameArgumentTest": NAME_CHARACTERS}


def _of_tables(test: str, filters: tuple[str, ...] = ("True", "False")) -> list[str]:
    """ComponentReflectionTest's get_multi_* parametrisations that reflect its tables (kinds
    that hold tables, scopes that hold the permanent ones): the others expect nothing, and
    pass."""
    kinds = ("ANY", "TABLE", "TABLE|MATERIALIZED_VIEW", "TABLE|VIEW")
    scopes = ("ANY", "DEFAULT")
    return [
        f"{test}[{f}-ObjectKind.{k}-ObjectScope.{s}-"
        for f in filters
        for k in kinds
        for s in scopes
    ]


# the parametrisations whose name begins so
PREFIXES = {
    **{("ComponentReflectionTest", p): COLUMNS for p in _of_tables("test_get_multi_columns")},
    **{("ComponentReflectionTest", p): INDEXES for p in _of_tables("test_get_multi_indexes")},
    # every table (no filter) includes those without a key; by name, the keyed ones pass
    **{
        ("ComponentReflectionTest", p): NO_KEY
        for p in _of_tables("test_get_multi_pk_constraint", ("False",))
    },
}

UNSUPPORTED = {
    ("ComponentReflectionTest", "test_get_columns"): COLUMNS,
    ("ComponentReflectionTest", "test_get_indexes"): INDEXES,
    ("ComponentReflectionTest", "test_get_pk_constraint"): NO_KEY,
    ("ComponentReflectionTest", "test_get_view_names"): VIEWS,
    ("DistinctOnTest", "test_distinct_on"): DISTINCT_ON,
    ("HasIndexTest", "test_has_index"): NO_KEY,
    ("HasTableTest", "test_has_table_cache"): NO_KEY,
    ("BitwiseTest", "test_bitwise"): NO_KEY,
    ("BooleanTest", "test_render_literal_bool"): NO_KEY,
    ("CastTypeDecoratorTest", "test_special_type"): NO_KEY,
    ("ComponentReflectionTestExtra", "test_nullable_reflection"): NO_KEY,
    ("ComponentReflectionTestExtra", "test_numeric_reflection"): NO_KEY,
    ("ComponentReflectionTestExtra", "test_string_length_reflection"): NO_KEY,
    ("CompositeKeyReflectionTest", "test_fk_column_order"): THREE_KEYS,
    ("CompositeKeyReflectionTest", "test_pk_column_order"): THREE_KEYS,
    ("CompoundSelectTest", "test_distinct_selectable_in_unions"): ONE_TABLE,
    ("CompoundSelectTest", "test_limit_offset_aliased_selectable_in_unions"): ONE_TABLE,
    ("CompoundSelectTest", "test_plain_union"): ONE_TABLE,
    ("CompoundSelectTest", "test_select_from_plain_union"): ONE_TABLE,
    ("DifficultParametersTest", "test_round_trip_same_named_column"): SHORT_NAME,
    ("DifficultParametersTest", "test_standalone_bindparam_escape"): NO_KEY,
    ("DifficultParametersTest", "test_standalone_bindparam_escape_expanding"): NO_KEY,
    ("EscapingTest", "test_percent_sign_round_trip"): NO_KEY,
    ("ExistsTest", "test_select_exists"): ONE_TABLE,
    ("ExistsTest", "test_select_exists_false"): ONE_TABLE,
    ("FetchLimitOffsetTest", "test_bound_limit_offset"): OFFSET,
    ("FetchLimitOffsetTest", "test_bound_offset"): OFFSET,
    ("FetchLimitOffsetTest", "test_limit_render_multiple_times"): ONE_TABLE,
    ("InsertBehaviorTest", "test_no_results_for_non_returning_insert"): GENERATED_KEY,
    ("IntegerTest", "test_literal"): NO_KEY,
    ("JoinTest", "test_inner_join_false"): JOIN_ON_CONSTANT,
    ("JoinTest", "test_inner_join_fk"): JOIN_SHORT_NAME,
    ("JoinTest", "test_inner_join_true"): JOIN_ON_CONSTANT,
    ("JoinTest", "test_outer_join_false"): JOIN_ON_CONSTANT,
    ("JoinTest", "test_outer_join_fk"): JOIN_SHORT_NAME,
    ("LongNameBlowoutTest", "test_long_convention_name[fk-_exclusions_00]"): NO_KEY,
    ("LongNameBlowoutTest", "test_long_convention_name[ix-_exclusions_02]"): LONG_NAME,
    (
        "NameDenormalizeTest",
        "test_cols_driver_cols[not_use_driver_cols-driver_sql]",
    ): ATTRIBUTE_ORDER,
    (
        "NameDenormalizeTest",
        "test_cols_driver_cols[not_use_driver_cols-text_cols]",
    ): ATTRIBUTE_ORDER,
    (
        "NameDenormalizeTest",
        "test_cols_driver_cols[not_use_driver_cols-text_star]",
    ): ATTRIBUTE_ORDER,
    ("NameDenormalizeTest", "test_cols_driver_cols[use_driver_cols-driver_sql]"): ATTRIBUTE_ORDER,
    ("NameDenormalizeTest", "test_cols_driver_cols[use_driver_cols-text_cols]"): ATTRIBUTE_ORDER,
    ("NameDenormalizeTest", "test_cols_driver_cols[use_driver_cols-text_star]"): ATTRIBUTE_ORDER,
    ("NumericTest", "test_enotation_decimal"): NO_KEY,
    ("NumericTest", "test_enotation_decimal_large"): NO_KEY,
    ("NumericTest", "test_float_as_decimal"): NO_KEY,
    ("NumericTest", "test_many_significant_digits"): NO_KEY,
    ("NumericTest", "test_float_as_float"): NO_KEY,
    ("NumericTest", "test_float_custom_scale"): NO_KEY,
    ("NumericTest", "test_numeric_as_decimal"): NO_KEY,
    ("NumericTest", "test_numeric_as_float"): NO_KEY,
    ("NumericTest", "test_numeric_null_as_decimal"): NO_KEY,
    ("NumericTest", "test_numeric_null_as_float"): NO_KEY,
    ("NumericTest", "test_precision_decimal"): NO_KEY,
    ("NumericTest", "test_render_literal_float"): NO_KEY,
    ("NumericTest", "test_render_literal_numeric"): NO_KEY,
    ("NumericTest", "test_render_literal_numeric_asfloat"): NO_KEY,
    ("ReturningGuardsTest", "test_delete_many"): SHORT_NAME,
    ("ReturningGuardsTest", "test_delete_single"): SHORT_NAME,
    ("ReturningGuardsTest", "test_insert_many"): SHORT_NAME,
    ("ReturningGuardsTest", "test_insert_single"): SHORT_NAME,
    ("ReturningGuardsTest", "test_update_many"): SHORT_NAME,
    ("ReturningGuardsTest", "test_update_single"): SHORT_NAME,
    ("RowFetchTest", "test_row_w_scalar_select"): ONE_TABLE,
    ("StringTest", "test_dont_truncate_rightside"): NO_KEY,
    ("StringTest", "test_literal"): NO_KEY,
    ("StringTest", "test_literal_backslashes"): NO_KEY,
    ("StringTest", "test_literal_non_ascii"): NO_KEY,
    ("StringTest", "test_literal_quoting"): NO_KEY,
    ("StringTest", "test_nolength_string"): NO_KEY,
    ("TableViaSelectTest", "test_compound_select_smoke"): NO_KEY,
    ("TableViaSelectTest", "test_create_drop_materialized_view"): NO_KEY,
    ("TableViaSelectTest", "test_create_or_replace_view"): NO_KEY,
    ("TableViaSelectTest", "test_create_table_as_if_not_exists"): NO_KEY,
    ("TableViaSelectTest", "test_literal_inlining_inside_select"): NO_KEY,
    ("TableViaSelectTest", "test_view_dependencies_with_metadata"): NO_KEY,
    ("TableViaSelectTest", "test_with_bind_param_executes"): NO_KEY,
    ("TableViaSelectTest", "test_with_labels"): NO_KEY,
    ("TableViaSelectTest", "test_with_metadata"): NO_KEY,
    ("TableViaSelectTest", "test_without_metadata"): NO_KEY,
    ("TextTest", "test_literal"): NO_KEY,
    ("TextTest", "test_literal_backslashes"): NO_KEY,
    ("TextTest", "test_literal_non_ascii"): NO_KEY,
    ("TextTest", "test_literal_percentsigns"): NO_KEY,
    ("TextTest", "test_literal_quoting"): NO_KEY,
    ("UnicodeTextTest", "test_literal"): NO_KEY,
    ("UnicodeTextTest", "test_literal_non_ascii"): NO_KEY,
    ("UnicodeVarcharTest", "test_literal"): NO_KEY,
    ("UnicodeVarcharTest", "test_literal_non_ascii"): NO_KEY,
    ("UuidTest", "test_literal_nonnative_text"): NO_KEY,
    ("UuidTest", "test_literal_nonnative_uuid"): NO_KEY,
    ("UuidTest", "test_literal_text"): NO_KEY,
    ("UuidTest", "test_literal_uuid"): NO_KEY,
}
