"""``\\h SELECT`` and ``help SELECT``: a statement's syntax, read from grammar/README.md's
EBNF (the one place the grammar is written down; nothing here repeats it)."""

from __future__ import annotations

import re
from pathlib import Path

# grammar/README.md, shipped in the package: a link to it in a checkout, a copy in the wheel
GRAMMAR = Path(__file__).with_name("grammar.md")
_RULE = re.compile(r"^(\w+)\s*=.*?;[ \t]*(?:\(\*.*?\*\))?[ \t]*$", re.M | re.S)


def rules(text: str | None = None) -> dict[str, str]:
    """Every EBNF rule of the grammar by name, as written (a name defined twice keeps both)."""
    if text is None:
        try:
            text = GRAMMAR.read_text(encoding="utf-8")
        except OSError:
            raise LookupError(
                f"the grammar ({GRAMMAR}) is missing from this copy of dynosql; "
                "it is grammar/README.md in the source repository"
            ) from None
    found: dict[str, str] = {}
    for block in re.findall(r"```ebnf\n(.*?)```", text, re.S):
        for m in _RULE.finditer(block):
            name = m.group(1)
            found[name] = (found[name] + "\n" + m.group(0)) if name in found else m.group(0)
    return found


def syntax(word: str) -> list[str]:
    """The rules a statement's word names (``SELECT``: select; ``SHOW``: every show_… rule;
    ``hot keys``: show_hot_keys), as lines; without a word, the list of statements."""
    every = rules()
    key = "_".join(word.lower().replace(";", " ").split())
    if not key:
        return every["statement"].splitlines() + ["", "\\h STATEMENT shows one: \\h SELECT"]
    names = [n for n in every if n == key or n.startswith(key + "_") or n.endswith("_" + key)]
    if not names:
        statements = sorted(set(re.findall(r"\w+", every["statement"])) - {"statement"})
        raise LookupError(f"no syntax for {word}; statements: {', '.join(statements)}")
    lines: list[str] = []
    for name in names:
        if lines:
            lines.append("")
        lines.extend(every[name].splitlines())
    return lines
