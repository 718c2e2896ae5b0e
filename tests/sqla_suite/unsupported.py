"""The suite's tests that are not run, each with the reason, applied by conftest.py (skipped
with it, and counted apart by tests/test_sqlalchemy_suite.py). The requirement switches in
requirements.py turn off whole capabilities; these are the tests SQLAlchemy gates by no
requirement. Two kinds:

- DYNAMODB: what a DynamoDB table cannot be or do (a table without a key, a name of under 3
  characters, schemas, constraints beyond the key, keys it generates, joins).
- GAP: what dynosql's dialect does not do yet, though DynamoDB would not stop it; each is a
  missing piece of dynosql, not of DynamoDB.
"""

DYNAMODB = "DynamoDB: "
GAP = "dynosql's gap: "

NO_KEY = DYNAMODB + "its table has no primary key (every DynamoDB table has a partition key)"
SHORT_NAME = DYNAMODB + "a table named in under 3 characters (table names are 3 to 255)"
THREE_KEYS = DYNAMODB + "a primary key of three columns (a key is one or two attributes)"
SCHEMA = DYNAMODB + "tables in another schema (DynamoDB has no schemas)"
CONSTRAINTS = DYNAMODB + "UNIQUE and CHECK constraints (DynamoDB enforces only the key)"
GENERATED_KEY = DYNAMODB + "an INSERT without the key (DynamoDB generates no keys)"
ONE_TABLE = DYNAMODB + "UNION, a subquery or EXISTS over another SELECT (one table a statement)"
NO_FROM = GAP + "a SELECT of values alone, without a table"
CASE = GAP + "the dialect does not compile CASE (dynosql's text SQL has it)"
CAST = GAP + "the dialect does not compile CAST"
DISTINCT_FROM = GAP + "IS [NOT] DISTINCT FROM"
FUNCTION = GAP + "SQL functions beyond the aggregates and DynamoDB's (lower())"
SAME_NAMES = GAP + "two result columns of one name"
EXACT_SQL = GAP + "the test compares the default compiler's SQL text (dynosql quotes every name)"
DISTINCT_ON = GAP + "DISTINCT ON is a CompileError, not the default compiler's warning"
BARE_BOOLEAN = GAP + "a boolean column alone as a WHERE (dynosql wants `flag = TRUE`)"
DENORMALIZE = GAP + "a text() query's column count (6 rows seen, 5 expected): not yet understood"

# the whole class: its tables carry CHECK and FOREIGN KEY constraints, views and schemas
CLASSES = {"ComponentReflectionTest": CONSTRAINTS + ", foreign keys, views and schemas"}

UNSUPPORTED = {
    ("BitwiseTest", "test_bitwise"): NO_KEY,
    ("BooleanTest", "test_render_literal_bool"): NO_KEY,
    ("BooleanTest", "test_whereclause"): BARE_BOOLEAN,
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
    ("DateTest", "test_null_bound_comparison"): CASE,
    ("DateTest", "test_select_direct"): NO_FROM,
    ("DateTimeCoercedToDateTimeTest", "test_null_bound_comparison"): CASE,
    ("DateTimeCoercedToDateTimeTest", "test_select_direct"): NO_FROM,
    ("DateTimeMicrosecondsTest", "test_null_bound_comparison"): CASE,
    ("DateTimeTest", "test_null_bound_comparison"): CASE,
    ("DateTimeTest", "test_select_direct"): NO_FROM,
    ("DifficultParametersTest", "test_round_trip_same_named_column"): NO_KEY,
    ("DifficultParametersTest", "test_standalone_bindparam_escape"): NO_KEY,
    ("DifficultParametersTest", "test_standalone_bindparam_escape_expanding"): NO_KEY,
    ("DistinctOnTest", "test_distinct_on"): DISTINCT_ON,
    ("EscapingTest", "test_percent_sign_round_trip"): NO_KEY,
    ("ExistsTest", "test_select_exists"): ONE_TABLE,
    ("ExistsTest", "test_select_exists_false"): ONE_TABLE,
    ("ExpandingBoundInTest", "test_null_in_empty_set_is_false_bindparam"): CASE,
    ("ExpandingBoundInTest", "test_null_in_empty_set_is_false_direct"): CASE,
    ("FetchLimitOffsetTest", "test_limit_render_multiple_times"): ONE_TABLE,
    ("FutureTableDDLTest", "test_create_table_schema"): SCHEMA,
    ("HasIndexTest", "test_has_index"): SCHEMA,
    ("HasIndexTest", "test_has_index_schema"): SCHEMA,
    ("HasTableTest", "test_has_multi_table"): SCHEMA,
    ("HasTableTest", "test_has_multi_table_schema"): SCHEMA,
    ("HasTableTest", "test_has_table"): SCHEMA,
    ("HasTableTest", "test_has_table_cache"): SCHEMA,
    ("HasTableTest", "test_has_table_nonexistent_schema"): SCHEMA,
    ("HasTableTest", "test_has_table_schema"): SCHEMA,
    ("HasTableTest", "test_has_table_temp_table"): SCHEMA,
    ("HasTableTest", "test_has_table_temp_view"): SCHEMA,
    ("HasTableTest", "test_has_table_view"): SCHEMA,
    ("HasTableTest", "test_has_table_view_schema"): SCHEMA,
    ("InsertBehaviorTest", "test_no_results_for_non_returning_insert"): GENERATED_KEY,
    ("IntegerTest", "test_huge_int_auto_accommodation"): NO_FROM,
    ("IntegerTest", "test_literal"): NO_KEY,
    ("IsOrIsNotDistinctFromTest", "test_is_or_is_not_distinct_from"): DISTINCT_FROM,
    ("JoinTest", "test_inner_join_false"): SHORT_NAME,
    ("JoinTest", "test_inner_join_fk"): SHORT_NAME,
    ("JoinTest", "test_inner_join_true"): SHORT_NAME,
    ("JoinTest", "test_outer_join_false"): SHORT_NAME,
    ("JoinTest", "test_outer_join_fk"): SHORT_NAME,
    ("LongNameBlowoutTest", "test_long_convention_name"): NO_KEY,
    ("NameDenormalizeTest", "test_cols_driver_cols"): DENORMALIZE,
    ("NumericTest", "test_decimal_coerce_round_trip"): NO_FROM,
    ("NumericTest", "test_decimal_coerce_round_trip_w_cast"): CAST,
    ("NumericTest", "test_enotation_decimal"): NO_KEY,
    ("NumericTest", "test_enotation_decimal_large"): NO_KEY,
    ("NumericTest", "test_float_as_decimal"): NO_KEY,
    ("NumericTest", "test_float_as_float"): NO_KEY,
    ("NumericTest", "test_float_coerce_round_trip"): NO_FROM,
    ("NumericTest", "test_float_custom_scale"): NO_KEY,
    ("NumericTest", "test_numeric_as_decimal"): NO_KEY,
    ("NumericTest", "test_numeric_as_float"): NO_KEY,
    ("NumericTest", "test_numeric_null_as_decimal"): NO_KEY,
    ("NumericTest", "test_numeric_null_as_float"): NO_KEY,
    ("NumericTest", "test_precision_decimal"): NO_KEY,
    ("NumericTest", "test_render_literal_float"): NO_KEY,
    ("NumericTest", "test_render_literal_numeric"): NO_KEY,
    ("NumericTest", "test_render_literal_numeric_asfloat"): NO_KEY,
    ("OrderByLabelTest", "test_composed_multiple"): FUNCTION,
    ("PostCompileParamsTest", "test_compile"): EXACT_SQL,
    ("PostCompileParamsTest", "test_compile_literal_binds"): EXACT_SQL,
    ("PostCompileParamsTest", "test_execute"): EXACT_SQL,
    ("PostCompileParamsTest", "test_execute_expanding_plus_literal_execute"): EXACT_SQL,
    ("QuotedNameArgumentTest", "test_get_check_constraints"): CONSTRAINTS,
    ("QuotedNameArgumentTest", "test_get_columns"): CONSTRAINTS,
    ("QuotedNameArgumentTest", "test_get_foreign_keys"): CONSTRAINTS,
    ("QuotedNameArgumentTest", "test_get_indexes"): CONSTRAINTS,
    ("QuotedNameArgumentTest", "test_get_pk_constraint"): CONSTRAINTS,
    ("QuotedNameArgumentTest", "test_get_table_comment"): CONSTRAINTS,
    ("QuotedNameArgumentTest", "test_get_table_options"): CONSTRAINTS,
    ("QuotedNameArgumentTest", "test_get_unique_constraints"): CONSTRAINTS,
    ("QuotedNameArgumentTest", "test_get_view_definition"): CONSTRAINTS,
    ("ReturningGuardsTest", "test_delete_many"): SHORT_NAME,
    ("ReturningGuardsTest", "test_delete_single"): SHORT_NAME,
    ("ReturningGuardsTest", "test_insert_many"): SHORT_NAME,
    ("ReturningGuardsTest", "test_insert_single"): SHORT_NAME,
    ("ReturningGuardsTest", "test_update_many"): SHORT_NAME,
    ("ReturningGuardsTest", "test_update_single"): SHORT_NAME,
    ("RowFetchTest", "test_row_w_scalar_select"): ONE_TABLE,
    ("RowFetchTest", "test_row_with_dupe_names"): SAME_NAMES,
    ("SameNamedSchemaTableTest", "test_simple_join_both_tables"): SCHEMA,
    ("SameNamedSchemaTableTest", "test_simple_join_whereclause_only"): SCHEMA,
    ("SameNamedSchemaTableTest", "test_subquery"): SCHEMA,
    ("StringTest", "test_concatenate_binary"): NO_FROM,
    ("StringTest", "test_concatenate_clauselist"): NO_FROM,
    ("StringTest", "test_dont_truncate_rightside"): NO_KEY,
    ("StringTest", "test_literal"): NO_KEY,
    ("StringTest", "test_literal_backslashes"): NO_KEY,
    ("StringTest", "test_literal_non_ascii"): NO_KEY,
    ("StringTest", "test_literal_quoting"): NO_KEY,
    ("StringTest", "test_nolength_string"): NO_KEY,
    ("TableDDLTest", "test_create_table_schema"): SCHEMA,
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
    ("TimeMicrosecondsTest", "test_null_bound_comparison"): CASE,
    ("TimeMicrosecondsTest", "test_select_direct"): NO_FROM,
    ("TimeTest", "test_null_bound_comparison"): CASE,
    ("TimeTest", "test_select_direct"): NO_FROM,
    ("TrueDivTest", "test_floordiv_integer"): NO_FROM,
    ("TrueDivTest", "test_floordiv_integer_bound"): NO_FROM,
    ("TrueDivTest", "test_floordiv_numeric"): NO_FROM,
    ("TrueDivTest", "test_truediv_divisor"): CAST,
    ("TrueDivTest", "test_truediv_float"): CAST,
    ("TrueDivTest", "test_truediv_integer"): CAST,
    ("TrueDivTest", "test_truediv_integer_bound"): CAST,
    ("TrueDivTest", "test_truediv_numeric"): CAST,
    ("UnicodeTextTest", "test_literal"): NO_KEY,
    ("UnicodeTextTest", "test_literal_non_ascii"): NO_KEY,
    ("UnicodeVarcharTest", "test_literal"): NO_KEY,
    ("UnicodeVarcharTest", "test_literal_non_ascii"): NO_KEY,
    ("UuidTest", "test_literal_nonnative_text"): NO_KEY,
    ("UuidTest", "test_literal_nonnative_uuid"): NO_KEY,
    ("UuidTest", "test_literal_text"): NO_KEY,
    ("UuidTest", "test_literal_uuid"): NO_KEY,
}
