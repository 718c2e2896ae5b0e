"""Did-you-mean: the closest known spelling of a word (keywords, functions, tables, names).

One rule everywhere: case-insensitive similarity (difflib), the best few, ties in sorted
order so that a message never changes between runs."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable

from dynosql.sql import keywords

_JOINED = {"GROUPBY": "GROUP BY", "ORDERBY": "ORDER BY"}
# functions people bring from other databases, and the DynamoDB one that does the job
FUNCTION_SYNONYMS = {
    "starts_with": "begins_with",
    "startswith": "begins_with",
    "start_with": "begins_with",
    "beginswith": "begins_with",
    "exists": "attribute_exists",
    "not_exists": "attribute_not_exists",
    "len": "size",
    "length": "size",
    "char_length": "size",
    "cardinality": "size",
    "typeof": "attribute_type",
}


def closest(word: str, candidates: Iterable[str], n: int = 3, cutoff: float = 0.6) -> list[str]:
    """The closest spellings of ``word`` among ``candidates``, best first."""
    by_lower: dict[str, str] = {}
    for c in sorted(set(candidates)):
        by_lower.setdefault(c.lower(), c)
    found = difflib.get_close_matches(word.lower(), list(by_lower), n=n, cutoff=cutoff)
    return [by_lower[f] for f in found]


def function_guess(name: str, known: Iterable[str]) -> str | None:
    """The function the user probably meant by an unknown ``name()``."""
    if name.lower() in FUNCTION_SYNONYMS:
        return FUNCTION_SYNONYMS[name.lower()]
    near = closest(name, known, n=1)
    return near[0] if near else None


KEYWORD_CUTOFF = 0.75  # how close a word must be to a keyword for "did you mean"


def keyword_guess(word: str, candidates: Iterable[str]) -> str | None:
    """The keyword among `candidates` that `word` (no keyword itself) is a misspelling of."""
    upper = word.upper()
    if upper in _JOINED:
        return _JOINED[upper]
    near = difflib.get_close_matches(upper, sorted(set(candidates)), n=1, cutoff=KEYWORD_CUTOFF)
    return near[0] if near else None


def misspelt_starter(code: str) -> tuple[int, str, str] | None:
    """The first word of `code` (comments blanked) when it starts no statement but is close to
    a word that does (CRETE, UPDAT, SELEC): (offset, word, statement word)."""
    m = _FIRST_WORD.match(code)
    if m is None or m.group(1).upper() in keywords.STARTER_WORDS:
        return None
    guess = keyword_guess(m.group(1), keywords.STARTER_WORDS)
    return (m.start(1), m.group(1), guess) if guess else None


def misspelt_keyword(
    code: str, before: int, words: Iterable[str] | None = None
) -> tuple[int, str, str] | None:
    """The last word starting at or before offset ``before`` of ``code`` (strings and quoted
    names blanked) that is no keyword but close to one of `words` (None: `keywords.RESERVED`):
    (offset, word, keyword). The statement's first word is compared with the statement words
    first."""
    if (first := misspelt_starter(code)) is not None and first[0] <= before:
        return first
    known = frozenset(keywords.RESERVED if words is None else words) | keywords.STARTER_WORDS
    best = None
    for m in re.finditer(r"[A-Za-z_]+", code):
        if m.start() > before:
            break
        word = m.group(0)
        if word.upper() in known or len(word) < 3 or _used_as_name(code, m.start(), m.end()):
            continue
        guess = keyword_guess(word, known)
        if guess:
            best = (m.start(), word, guess)
    return best


def misspelt_words(code: str, words: Iterable[str] | None = None) -> list[tuple[int, str, str]]:
    """Every word of ``code`` that is no keyword but close to one, in order (the first word
    compared with the statement words): ``SELEC * FORM drive LIMT 3`` has three."""
    found = []
    first = misspelt_starter(code)
    if first is not None:
        found.append(first)
    known = frozenset(keywords.RESERVED if words is None else words) | keywords.STARTER_WORDS
    for m in re.finditer(r"[A-Za-z_]+", code):
        word = m.group(0)
        if first is not None and m.start() == first[0]:
            continue
        if word.upper() in known or len(word) < 3 or _used_as_name(code, m.start(), m.end()):
            continue
        guess = keyword_guess(word, known)
        if guess:
            found.append((m.start(), word, guess))
    return found


def needed_words(
    code: str, found: list[tuple[int, str, str]], parses: Callable[[str], bool]
) -> list[tuple[int, str, str]]:
    """Of the words `misspelt_words` found, those the statement needs corrected: with every
    one replaced by its keyword it parses, and without this one's replacement it does not
    (``SELECT form FROM t`` keeps its attribute ``form``). [] when replacing them all does
    not make it parse: then nothing is sure beyond the word at the error."""

    def replaced(items: list[tuple[int, str, str]]) -> str:
        text = code
        for at, word, keyword in sorted(items, reverse=True):
            text = text[:at] + keyword + text[at + len(word) :]
        return text

    if not found or not parses(replaced(found)):
        return []
    return [f for f in found if not parses(replaced([g for g in found if g is not f]))]


def unknown_words_message(found: list[tuple[int, str, str]]) -> str:
    """``unknown word FORM: did you mean FROM?``, or for several, every one at once."""
    if len(found) == 1:
        _at, word, keyword = found[0]
        return f"unknown word {word}: did you mean {keyword}?"
    words = ", ".join(w for _a, w, _k in found)
    meant = ", ".join(k for _a, _w, k in found)
    return f"unknown words {words}: did you mean {meant}?"


_FIRST_WORD = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\b")


def _used_as_name(code: str, start: int, end: int) -> bool:
    """A word after FROM or a dot, or before an operator, a dot or a parenthesis, is a name."""
    before = code[:start].rstrip()
    after = code[end:].lstrip()
    if before.endswith(".") or re.search(r"\bFROM$", before, re.I):
        return True
    return bool(after) and after[0] in "=<>!.([,"
