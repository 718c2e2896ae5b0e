"""Docs that cannot rot: every example of README.md and docs/ that shows its output runs on
``--local`` and shows that output (tests/doc_examples.py: the forms, and what is made equal);
every relative link resolves; docs/README.md lists every page."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from doc_examples import (
    NOT_RUN,
    ROOT,
    Example,
    blocks,
    console_commands,
    difference,
    doc_pages,
    examples,
    markers,
    normal,
    repl_inputs,
    run_page,
)

PAGES = [page for page in doc_pages() if examples(page)]
NOT_RUN_EXAMPLES = [e for page in doc_pages() for e in examples(page) if e.not_run is not None]
LINKED = [
    ROOT / "README.md",
    ROOT / "CONTRIBUTING.md",
    *sorted((ROOT / "docs").glob("*.md")),
    ROOT / "grammar" / "README.md",
    ROOT / "examples" / "README.md",
    ROOT / "benchmarks" / "README.md",
]


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


# --- the examples, run ------------------------------------------------------------------------------


@pytest.mark.slow  # every page's examples run as dynosql processes: 12 s of CPU, CI's to check
@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_every_example_of_a_page_shows_what_the_page_says(
    page: Path, tmp_path: Path, moto_examples_backend: Any
) -> None:
    """A page that only reads runs on the session's example server (the same tables as
    ``--local``'s, filled once); a page that changes data, on a server of its own."""
    differences, outputs = run_page(page, tmp_path, shared=moto_examples_backend.local)
    assert outputs, f"{_name(page)}: no example ran"
    assert not differences, "\n\n".join(differences)


@pytest.mark.parametrize("example", NOT_RUN_EXAMPLES, ids=lambda e: e.where)
def test_an_example_marked_not_run_is_listed_with_its_reason(example: Example) -> None:
    pytest.skip(f"{example.where}: not run: {example.not_run}")


@pytest.mark.parametrize("page", doc_pages(), ids=_name)
def test_a_not_run_marker_gives_a_reason_and_stands_before_an_example(page: Path) -> None:
    marked = {e.line for e in examples(page) if e.not_run}
    text = page.read_text(encoding="utf-8").splitlines()
    for line, marker in markers(page):
        m = NOT_RUN.match(marker.strip())
        assert m and m.group(1), f"{_name(page)}:{line}: write <!-- not run: REASON -->"
        following = next(n for n in range(line, len(text)) if text[n].strip())
        assert following + 2 in marked, f"{_name(page)}:{line}: no example right after it"


# --- the runner: what it reads, and how it compares --------------------------------------------------

PAGE = """# A page

```sql
SELECT 1;
```

```text
one
```

Prose between: not an output.

```sql
SELECT 2;
```

and then

```text
two
```

<!-- not run: needs AWS -->
```sql
SELECT 3;
```

```
three
```

```text
dynosql> SELECT a
      -> FROM t;
rows
DROP TABLE t? [y/N] y
dynosql> \\dt
tables
```

```console
$ dynosql --local -e "SELECT 1" \\
  --format csv > /dev/null
warning
$ echo $?
0
```

<!-- file: patterns.sql -->
```sql
SELECT 4;
```

```text
not an output: the block above is a file
```
"""


def test_the_three_forms_are_read_from_the_markdown(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(PAGE)
    found = examples(page)
    assert [(e.form, e.line, e.output_line) for e in found] == [
        ("sql", 4, 8),  # an output block right after the SQL
        ("sql", 25, 29),  # … and one marked not run
        ("repl", 33, 33),
        ("console", 42, 42),
        ("file", 51, 51),
    ]  # `SELECT 2` has prose before its text block: not an example
    assert found[0].expected == "one"
    assert found[1].not_run == "needs AWS" and found[0].not_run is None
    assert repl_inputs(found[2].code) == ["SELECT a\nFROM t;", "y", "\\dt"]
    commands = console_commands(found[3].code)
    assert [c.argv for _, c in commands] == [
        ["dynosql", "--local", "-e", "SELECT 1", "--format", "csv"],
        [],
    ]
    assert commands[0][1].discard_stdout and commands[1][1].exit_code
    assert (found[4].code, found[4].expected) == ("SELECT 4;", "patterns.sql")
    assert [b.language for b in blocks(PAGE)] == ["sql", "text", "sql", "text", "sql", ""] + [
        "text",
        "console",
        "sql",
        "text",
    ]


def test_only_what_varies_is_made_equal() -> None:
    footer = "3 rows · Query audit · 3 items scanned · 0.5 RCU · {}"
    assert normal(footer.format("0.012s")) == normal(footer.format("1.5s"))
    assert normal(footer.format("0.012s")) != normal(footer.format("0.012s").replace("3", "4"))
    journal = "journal ~/.local/state/dynosql/journal/{}-drive.jsonl"
    assert normal(journal.format("20261206T063317.904751Z")) == normal(
        journal.format("20270101T000000.000001Z")
    )
    assert normal("http://127.0.0.1:41681 ") == normal("http://127.0.0.1:36373")  # and the end
    assert normal("EVT#2026-03-31T22:54:09.856Z") != normal("EVT#2026-03-31T22:54:09.857Z")


def test_a_wrong_output_fails_with_a_diff_naming_the_page_and_line(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "Intro.\n\n```sql\nSELECT COUNT(*) AS n FROM drive WHERE PK = 'DRIVE#bob';\n```\n\n"
        "```text\n+-----+\n|   n |\n|-----|\n| 121 |\n+-----+\n"
        "1 row · Query drive · 120 items scanned · 2.5 RCU · 0.030s\n```\n"
    )
    differences, _ = run_page(page, tmp_path / "run")
    assert len(differences) == 1
    message = differences[0]
    assert message.startswith(f"{page}:4: the sql example's output differs from line 11 on\n")
    assert f"{page}:8 (the page)" in message
    assert "\n-| 121 |\n+| 120 |\n" in message


def test_a_page_that_writes_runs_on_a_server_of_its_own(
    tmp_path: Path, moto_examples_backend: Any
) -> None:
    """Its later examples see its write; the shared server, which read-only pages use, does
    not."""
    page = tmp_path / "page.md"
    page.write_text(
        "```sql\nINSERT INTO drive (PK, SK) VALUES ('DRIVE#docs', 'root/');\n```\n\n```text\n"
        "INSERT drive: 1 matched, 1 written, 0 already existed · 0 RCU + 1 WCU · 0.010s · "
        "journal ~/.local/state/dynosql/journal/20261206T063317.904751Z-drive.jsonl\n```\n\n"
        "```sql\nSELECT SK FROM drive WHERE PK = 'DRIVE#docs';\n```\n\n```text\n+-------+\n"
        "| SK    |\n|-------|\n| root/ |\n+-------+\n"
        "1 row · Query drive · 1 item scanned · 0.5 RCU · 0.010s\n```\n"
    )
    differences, outputs = run_page(page, tmp_path / "run", shared=moto_examples_backend.local)
    assert len(outputs) == 2 and not differences, differences
    shared = moto_examples_backend.client()
    key = {"PK": {"S": "DRIVE#docs"}, "SK": {"S": "root/"}}
    assert "Item" not in shared.get_item(TableName="drive", Key=key)


def test_a_difference_is_none_when_the_output_matches(tmp_path: Path) -> None:
    example = Example(tmp_path / "p.md", 1, "sql", "SELECT 1", "a\nb  \n\n", 5)
    assert difference(example, "a\nb\n") is None
    assert difference(example, "a\nc\n") is not None


# --- links and the index -----------------------------------------------------------------------------

_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_REFERENCE = re.compile(r"^\s*\[[^\]]+\]:\s*(\S+)", re.M)
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+\1")


def _prose(text: str) -> str:
    """The text outside fenced blocks and code spans (links there are not links)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if re.match(r"^\s*(```|~~~)", line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(_CODE_SPAN.sub("", line))
    return "\n".join(lines)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: the rendered text, lowercased, without punctuation other
    than hyphens and underscores, spaces made hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if re.match(r"^\s*(```|~~~)", line):
            fenced = not fenced
        elif not fenced and (m := re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)):
            base = slug(m.group(1))
            name, n = base, 0
            while name in found:
                n += 1
                name = f"{base}-{n}"
            found.add(name)
    return found


def test_the_slugs_are_githubs() -> None:
    assert slug("Sampling: `TABLESAMPLE` and `SHOW HOT KEYS … SAMPLE`") == (
        "sampling-tablesample-and-show-hot-keys--sample"
    )
    assert slug("Capacity on `--local`: what DynamoDB would charge") == (
        "capacity-on---local-what-dynamodb-would-charge"
    )
    assert slug('When dynosql says "did you mean"') == "when-dynosql-says-did-you-mean"


@pytest.mark.parametrize("page", LINKED, ids=_name)
def test_every_relative_link_resolves(page: Path) -> None:
    text = _prose(page.read_text(encoding="utf-8"))
    broken = []
    for target in _LINK.findall(text) + _REFERENCE.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:: not checked offline
            continue
        path, _, anchor = target.partition("#")
        where = (page.parent / path).resolve() if path else page
        if not where.exists():
            broken.append(f"{target}: no such file")
        elif anchor and where.suffix == ".md" and anchor not in anchors(where):
            broken.append(f"{target}: no heading #{anchor} in {_name(where)}")
    assert not broken, f"{_name(page)}: " + "; ".join(broken)


def test_the_docs_index_lists_every_page() -> None:
    index = (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    linked = set(_LINK.findall(_prose(index)))
    pages = {p.name for p in (ROOT / "docs").glob("*.md")} - {"README.md"}
    missing = sorted(name for name in pages if name not in linked)
    assert not missing, f"docs/README.md does not list {missing}"
