"""One keyword vocabulary (``dynosql.sql.keywords``): the grammar's keywords are all in it, and the
parsers' hints, the spelling suggestions, the highlighter and the completer all draw from it (a
word added there is highlighted, completed and suggested; no consumer keeps a list of its own)."""

from __future__ import annotations

import ast as python_ast
import dataclasses
import importlib
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
import sqlglot
from sqlglot import exp

from dynosql.errors import SqlError
from dynosql.repl import completer, highlight, write_complete
from dynosql.sql import convert, keywords, parse, parser, spelling, table_and_copy_parse
from dynosql.sql.ast import Pos
from dynosql.sql.split import Chunk
from dynosql.statements import registered
from dynosql.statements.show import ShowTables
from dynosql.values import TYPE_CODES

ROOT = Path(__file__).resolve().parent.parent
GRAMMAR = ROOT / "grammar" / "README.md"


# --- the grammar's keywords are the vocabulary's ---------------------------------------------------


def _ebnf_rules() -> dict[str, str]:
    """Every rule of the ```ebnf blocks of grammar/README.md: name -> body (comments removed).
    A name defined twice (``explain``, ``source``, ``value``) keeps both bodies."""
    blocks = re.findall(r"```ebnf\n(.*?)```", GRAMMAR.read_text(), re.S)
    assert len(blocks) >= 6, "grammar/README.md should write its grammar in ```ebnf blocks"
    rules: dict[str, str] = {}
    for block in blocks:
        block = re.sub(r"\(\*.*?\*\)", " ", block, flags=re.S)
        for name, body in re.findall(r"^(\w+)\s*=(.*?);[ \t]*$", block, re.M | re.S):
            rules[name] = rules.get(name, "") + " " + body
    return rules


def _terminals(body: str) -> list[str]:
    """The quoted terminals of a rule body, left to right: "SELECT", "GROUP BY", "'S'", '"'."""
    return [a if a is not None else b for a, b in re.findall(r'"([^"]*)"|\'([^\']*)\'', body)]


# `number` is a lexical rule: its "e" / "E" are the exponent's letter, not a keyword
LEXICAL_RULES = {"number"}


def test_every_keyword_of_the_grammar_is_in_the_vocabulary() -> None:
    rules = _ebnf_rules()
    assert {"select", "insert", "create_table", "copy_from", "condition"} <= set(rules)
    seen: set[str] = set()
    missing = []
    for name, body in rules.items():
        if name in LEXICAL_RULES:
            continue
        for terminal in _terminals(body):
            if terminal.startswith("'") and terminal.endswith("'") and len(terminal) > 2:
                # attribute_type's type names are string values: 'S', 'BOOL', …
                assert terminal[1:-1] in TYPE_CODES, (name, terminal)
                continue
            if terminal in keywords.RETURNING:
                continue
            for word in re.findall(r"[A-Za-z][A-Za-z_]*", terminal):
                seen.add(word)
                if word.isupper():  # a keyword, or an aggregate or scalar function (COUNT, ROUND)
                    known = word in keywords.KEYWORDS or word in keywords.functions(
                        "aggregate", "scalar"
                    )
                else:  # a function's name, or COPY's format names
                    known = word in keywords.FUNCTION_NAMES or word in keywords.COPY_FORMATS
                if not known:
                    missing.append((name, word))
    assert not missing, (
        f"keywords of grammar/README.md missing from dynosql/sql/keywords.py: {missing}"
    )
    # the extraction really found the grammar's words, of each kind
    assert {"SELECT", "GROUP", "BY", "TABLESAMPLE", "UPSERT", "PRIMARY", "STRING", "SKIP"} <= seen
    assert {"begins_with", "if_not_exists", "jsonl", "COUNT"} <= seen


def test_every_statement_of_the_grammar_starts_with_a_starter() -> None:
    rules = _ebnf_rules()
    statements = re.findall(r"\w+", rules["statement"])
    assert len(statements) >= 19
    first_words, words = set(), set()
    for statement in statements:
        terminals = _terminals(rules[statement])
        first_words.add(terminals[0].split()[0])
        words.update(w for t in terminals for w in t.split())
    assert first_words <= keywords.STARTER_WORDS, first_words - keywords.STARTER_WORDS
    assert keywords.STARTER_WORDS <= words, keywords.STARTER_WORDS - words
    # and every statement the parser dispatches by its leading words is written down there
    written = [{w for t in _terminals(rules[s]) for w in t.split()} for s in statements]
    for starter in (*keywords.STARTERS, *keywords.UNDER):
        lead = set(starter.lead.split())
        assert any(lead <= ws for ws in written), f"{starter.lead} is not in grammar/README.md"


# --- every consumer draws from it -----------------------------------------------------------------


def test_the_highlighter_colours_every_keyword_and_function() -> None:
    for word in keywords.KEYWORDS:
        kind = highlight.tokenize(word)[0].kind
        assert kind == ("keyword" if len(word) > 1 else "word"), word
    for function in keywords.FUNCTIONS:
        if function.name.upper() in keywords.KEYWORDS:
            continue  # REPLACE: a statement's first word too (REPLACE INTO), shown as one
        assert highlight.tokenize(function.name)[0].kind == "function", function
        assert highlight.tokenize(function.name.swapcase())[0].kind == "function", function


def test_completion_offers_the_starters_and_functions() -> None:
    meta = completer.StaticMetadata([])
    at_start = [s.text for s in completer.suggest("", "", meta)]
    assert at_start == [s.opening for s in keywords.STARTERS]
    after_explain = [s.text for s in completer.suggest("EXPLAIN ", "", meta)]
    assert after_explain == [*(s.opening for s in keywords.STARTERS if s.explain), "ANALYZE"]
    after_analyze = [s.text for s in completer.suggest("EXPLAIN ANALYZE ", "", meta)]
    assert after_analyze == [s.opening for s in keywords.STARTERS if s.analyze]
    where = {s.text for s in completer.suggest("SELECT * FROM t WHERE ", "", meta)}
    assert set(keywords.functions("condition", "operand")) <= where
    assert not set(keywords.functions("aggregate", "update")) & where
    updating = {s.text for s in completer.suggest("UPDATE t SET a = ", "", meta)}
    assert set(keywords.functions("update")) <= updating


# words completion and the table parser use in place (what may come next) are vocabulary words
POSITIONAL = [completer, write_complete, table_and_copy_parse]


@pytest.mark.parametrize("module", POSITIONAL, ids=lambda m: m.__name__)
def test_no_consumer_spells_a_keyword_the_vocabulary_lacks(module) -> None:
    tree = python_ast.parse(Path(module.__file__).read_text())
    words = set()
    for node in python_ast.walk(tree):
        if isinstance(node, python_ast.Constant) and isinstance(node.value, str):
            if re.fullmatch(r"[A-Z][A-Z_]+(?: [A-Z][A-Z_]+)*", node.value):
                words.update(node.value.split())
    assert words, module.__name__
    assert words <= keywords.KEYWORDS, sorted(words - keywords.KEYWORDS)


def test_spelling_and_the_parsers_take_their_words_from_it() -> None:
    assert set(spelling.FUNCTION_SYNONYMS.values()) <= keywords.FUNCTION_NAMES
    assert set(convert.AGGREGATES.values()) == set(keywords.functions("aggregate"))
    assert set(convert.CONDITION_FUNCTIONS) == set(keywords.functions("condition"))
    for starter in keywords.STARTERS:
        assert spelling.misspelt_starter(starter.lead) is None
        misspelt = starter.word[:-1] if len(starter.word) > 4 else None
        if misspelt:
            assert spelling.misspelt_starter(f"  {misspelt} x") == (2, misspelt, starter.word)


def test_completion_quotes_every_name_sql_would_read_as_a_keyword() -> None:
    """quote_name quotes the RESERVED words; every vocabulary word sqlglot cannot read as a
    column name must be one of them."""
    unreadable = set()
    for word in keywords.KEYWORDS:
        for sql in (f"SELECT {word} FROM t WHERE {word} = 1", f"SELECT a FROM t ORDER BY {word}"):
            try:
                tree = sqlglot.parse_one(sql, read=convert.DynoSQL)
            except sqlglot.errors.SqlglotError:
                unreadable.add(word)
                continue
            names = {c.name.upper() for c in tree.find_all(exp.Column)}
            if not isinstance(tree, exp.Select) or word not in names:
                unreadable.add(word)
    assert unreadable <= keywords.RESERVED, sorted(unreadable - keywords.RESERVED)
    assert all(completer.quote_name(w.lower()).startswith('"') for w in keywords.RESERVED)
    assert completer.quote_name("n") == "n" and completer.quote_name("format") == "format"


def test_a_word_added_to_the_vocabulary_reaches_every_consumer() -> None:
    """A new statement starter and a new condition function, written only in keywords.py (a
    patched copy, in a fresh interpreter): parsed for its spelling, highlighted, completed."""
    source = (ROOT / "dynosql" / "sql" / "keywords.py").read_text()
    patched = source.replace(
        "CORE = (\n", 'CORE = (\n    Starter("FROBNICATE", "FROBNICATE", "read"),\n', 1
    ).replace("FUNCTIONS = (\n", 'FUNCTIONS = (\n    Function("frob_exists", "condition", 1),\n', 1)
    assert patched.count("FROBNICATE") == 2 and "frob_exists" in patched
    program = textwrap.dedent(
        """
        import sys, types
        module = types.ModuleType("dynosql.sql.keywords")
        module.__file__ = "dynosql/sql/keywords.py"  # the kinds' Starters are found beside it
        sys.modules["dynosql.sql.keywords"] = module
        exec(compile(sys.stdin.read(), "keywords.py", "exec"), module.__dict__)

        from dynosql.errors import SqlError
        from dynosql.repl import completer, highlight
        from dynosql.sql import parse

        meta = completer.StaticMetadata([])
        texts = lambda before: [s.text for s in completer.suggest(before, "", meta)]
        assert "FROBNICATE" in texts(""), texts("")
        assert texts("FROB") == ["FROBNICATE"]
        assert "frob_exists" in texts("SELECT * FROM t WHERE ")
        assert highlight.tokenize("frobnicate")[0].kind == "keyword"
        assert highlight.tokenize("FROB_EXISTS")[0].kind == "function"
        assert completer.quote_name("frobnicate") == '"frobnicate"'
        for sql, message in [
            ("FROBNICAT t", "unknown word FROBNICAT: did you mean FROBNICATE?"),
            ("SELECT * FROM t WHERE frob_exist(a)", "did you mean frob_exists()?"),
        ]:
            try:
                parse(sql)
            except SqlError as err:
                assert message in err.message, err.message
            else:
                raise AssertionError(sql)
        parse("SELECT * FROM t WHERE frob_exists(a)")  # a condition function of one argument
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", program],
        input=patched,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr


def _frobnicate(chunk: Chunk, code: str, position: Callable[[int], Pos]) -> ShowTables:
    assert position(code.index("t2")) == Pos(2, 14)
    return ShowTables()


def test_a_starter_naming_its_parser_needs_no_branch_in_the_parser(monkeypatch) -> None:
    """A family read in a module of its own is dispatched from its `Starter` (parser=…): the
    parser calls the function it names, with positions that point into the script."""
    starter = keywords.Starter("FROBNICATE", "FROBNICATE", "frob", parser=f"{__name__}:_frobnicate")
    monkeypatch.setattr(
        parser, "_ELSEWHERE", (*parser._ELSEWHERE, (keywords.leading((starter,)), starter.parser))
    )
    assert parser.parse_script("SHOW TABLES;\n  frobnicate t2") == [ShowTables(), ShowTables()]
    assert all(callable(parser._family_parser(s.lead)) for s in keywords.STARTERS if s.parser)


def test_a_statement_under_another_starters_words_is_read_by_the_function_it_names() -> None:
    """SHOW CREATE ENTITY goes to the entity statements' parser, SHOW CREATE (TABLE) to the
    table statements': the longest leading words that match decide."""

    def named(where: str) -> Callable[..., object]:
        module, name = where.split(":")
        return getattr(importlib.import_module(module), name)

    for starter in (*keywords.STARTERS, *keywords.UNDER):
        if starter.parser:
            for lead in (starter.lead, *starter.aliases):
                assert parser._family_parser(f"  {lead.lower()} x") is named(starter.parser), lead
        if starter.explainer:
            assert parser._named(parser._EXPLAINERS, starter.lead) is named(starter.explainer)
    assert {s.word for s in keywords.UNDER} <= keywords.STARTER_WORDS
    assert not {s.opening for s in keywords.UNDER} & set(completer.OPENINGS)


# --- the Starters the kind modules declare ---------------------------------------------------------


def _as_read(starter: keywords.Starter) -> keywords.Starter:
    """A Starter as `keywords.declared` reads it: a function named as "module:function"."""

    def named(f: object) -> object:
        return f if isinstance(f, str) else f"{f.__module__}:{f.__name__}"  # type: ignore[attr-defined]

    return dataclasses.replace(
        starter, parser=named(starter.parser), explainer=named(starter.explainer)
    )


def test_the_kinds_starters_are_read_as_their_modules_declare_them() -> None:
    """`keywords.declared` reads the kind modules' STARTERS without importing them; importing
    every kind gives the same Starters, and none that the reading missed."""
    registered()  # every kind module imported
    imported = [
        _as_read(starter)
        for name, module in sorted(sys.modules.items())
        if name.startswith("dynosql.statements.")
        for starter in getattr(module, "STARTERS", ())
    ]
    assert sorted(map(repr, keywords.declared())) == sorted(map(repr, imported))
    leads = {s.lead for s in keywords.declared()}
    assert {"DESCRIBE", "SET", "SHOW TABLES", "SHOW HOT KEYS", "SHOW ENTITIES FROM"} <= leads
    assert set(keywords.declared()) <= {*keywords.STARTERS, *keywords.UNDER}


def test_no_two_statements_begin_with_the_same_words() -> None:
    """Dispatch takes the first Starter whose words match: two kinds declaring the same words
    would leave one unreachable."""
    leads = [lead for s in (*keywords.STARTERS, *keywords.UNDER) for lead in (s.lead, *s.aliases)]
    assert sorted(lead for lead in leads if leads.count(lead) > 1) == []


def test_a_declaration_is_read_from_the_source_of_its_module(tmp_path: Path) -> None:
    (tmp_path / "limits.py").write_text(
        '"""SHOW LIMITS."""\n\nSTARTERS: tuple[Starter, ...] = (\n    Starter(\n        "SHOW LIMITS",'
        '\n        "SHOW LIMITS",\n        aliases=("SHOW LIMIT",),\n        parser=parse,\n    ),\n)'
        "\nKINDS = {}\n"
    )
    (tmp_path / "other.py").write_text("STARTING = 1\n")
    assert keywords.declared(tmp_path) == (
        keywords.Starter(
            "SHOW LIMITS",
            "SHOW LIMITS",
            aliases=("SHOW LIMIT",),
            parser="dynosql.statements.limits:parse",
        ),
    )


def test_a_declaration_named_in_a_docstring_or_string_is_not_read(tmp_path: Path) -> None:
    """Lines of a docstring (or another triple-quoted string) that begin with STARTERS, even one
    that would parse as a declaration, are text: the module's declaration is the one read."""
    (tmp_path / "limits.py").write_text(
        '"""SHOW LIMITS. A kind declares its words beside its KINDS:\n'
        "STARTERS = (Starter(…),) names its statement's leading words.\n"
        '"""\n\n'
        "EXAMPLE = '''\n"
        'STARTERS = (Starter("SHOW QUOTAS", "SHOW QUOTAS"),)\n'
        "'''\n"
        'STARTERS = (Starter("SHOW LIMITS", "SHOW LIMITS", parser=parse),)\n'
    )
    assert keywords.declared(tmp_path) == (
        keywords.Starter("SHOW LIMITS", "SHOW LIMITS", parser="dynosql.statements.limits:parse"),
    )


@pytest.mark.parametrize(
    "declaration, line, why",
    [
        ('STARTERS = (\n    Starter("LIMITS", "LIMITS", parser=make()),\n)\n', 4, "malformed"),
        ("STARTERS = (LIMITS,)\n", 3, "not a Starter(…) call"),
        ("STARTERS = tuple(made())\n", 3, "not a Starter(…) call"),
    ],
)
def test_a_declaration_that_cannot_be_read_without_running_it_is_refused(
    tmp_path: Path, declaration: str, line: int, why: str
) -> None:
    (tmp_path / "limits.py").write_text(f'"""SHOW LIMITS."""\n\n{declaration}')
    with pytest.raises(ValueError) as info:
        keywords.declared(tmp_path)
    where = f"{tmp_path / 'limits.py'}:{line}: STARTERS takes Starter(…) calls with literal "
    assert str(info.value).startswith(where) and why in str(info.value), str(info.value)


# --- the first word: statement starters first ------------------------------------------------------


@pytest.mark.parametrize(
    "sql, word, meant",
    [
        ("CRETE TABLE t (pk S, PRIMARY KEY (pk))", "CRETE", "CREATE"),
        ("UPDAT t SET a = 1 WHERE pk = 'x'", "UPDAT", "UPDATE"),
        ("SELEC * FROM t", "SELEC", "SELECT"),
        ("DELTE FROM t WHERE pk = 'x'", "DELTE", "DELETE"),
        ("INSRT INTO t (pk) VALUES ('a')", "INSRT", "INSERT"),
        ("upsrt INTO t (pk) VALUES ('a')", "upsrt", "UPSERT"),
        ("DESCRIBEE t", "DESCRIBEE", "DESCRIBE"),
        ("ROLBACK", "ROLBACK", "ROLLBACK"),
        ("-- a comment first\n  CRETE TABLE t", "CRETE", "CREATE"),
    ],
)
def test_a_misspelt_first_word_is_compared_with_the_statement_starters(
    sql: str, word: str, meant: str
) -> None:
    with pytest.raises(SqlError) as info:
        parse(sql)
    assert info.value.message == f"unknown word {word}: did you mean {meant}?"
    line = sql.count("\n", 0, sql.index(word)) + 1
    col = sql.index(word) - (sql.rfind("\n", 0, sql.index(word)) + 1) + 1
    assert (info.value.line, info.value.col) == (line, col)
