"""One keyword vocabulary (``dynosql.sql.keywords``): the grammar's keywords are all in it, and the
parsers' dispatch and hints and the spelling suggestions draw from it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dynosql.errors import SqlError
from dynosql.sql import convert, keywords, parse, spelling
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
                if word.isupper():  # a keyword, or an aggregate's name (COUNT)
                    known = word in keywords.KEYWORDS or word in keywords.functions("aggregate")
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


# --- every consumer draws from it -----------------------------------------------------------------


def test_spelling_and_the_parsers_take_their_words_from_it() -> None:
    assert set(spelling.FUNCTION_SYNONYMS.values()) <= keywords.FUNCTION_NAMES
    assert set(convert.AGGREGATES.values()) == set(keywords.functions("aggregate"))
    assert set(convert.CONDITION_FUNCTIONS) == set(keywords.functions("condition"))
    for starter in keywords.STARTERS:
        assert spelling.misspelt_starter(starter.lead) is None
        misspelt = starter.word[:-1] if len(starter.word) > 4 else None
        if misspelt:
            assert spelling.misspelt_starter(f"  {misspelt} x") == (2, misspelt, starter.word)


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
