"""The base install is lean: `--local` runs with only what dynosql's declared dependencies bring.

A fresh `pip install .` is measured in docs/local.md; here the same promise is checked cheaply in
the test venv: every installed distribution outside the closure of dynosql's runtime
requirements (extras followed as declared, markers evaluated) is made unimportable, and
`dynosql --local` must still answer. moto's `server` extra (cfn-lint, sympy, docker, …) is not in
that closure, so an import of any of them would fail this test.
"""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name


def _closure(name: str, extras: frozenset[str] = frozenset()) -> set[str]:
    """Canonical names of `name` and every distribution its requirements pull in."""
    seen: set[str] = set()
    todo: list[tuple[str, frozenset[str]]] = [(name, extras)]
    visited: set[tuple[str, frozenset[str]]] = set()
    while todo:
        dist, wanted = todo.pop()
        if (dist, wanted) in visited:
            continue
        visited.add((dist, wanted))
        seen.add(canonicalize_name(dist))
        for line in metadata.requires(dist) or []:
            req = Requirement(line)
            envs = [{"extra": e} for e in wanted] or [{"extra": ""}]
            if req.marker is None or any(req.marker.evaluate(env) for env in envs):
                todo.append((req.name, frozenset(req.extras)))
    return seen


def test_the_runtime_closure_leaves_out_moto_server_extras() -> None:
    closure = _closure("dynosql")
    assert {"moto", "boto3", "sqlglot", "flask", "flask-cors"} <= closure
    # what moto[server] would add for other AWS services
    assert not {"cfn-lint", "sympy", "aws-xray-sdk", "graphql-core", "joserfc"} & closure
    # the embedded S3 (--local's exports) brings no distribution beyond moto[dynamodb]'s
    assert _closure("moto", frozenset({"dynamodb", "s3"})) == _closure(
        "moto", frozenset({"dynamodb"})
    )


BLOCKER = """
import sys, importlib.abc
BLOCKED = set(sys.argv[1].split(","))
class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"blocked by the lean-install test: {name}", name=name)
        return None
sys.meta_path.insert(0, Blocker())
from dynosql.cli import main
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.slow
def test_local_runs_with_only_the_declared_dependencies() -> None:
    closure = _closure("dynosql")
    blocked = sorted(
        module
        for module, dists in metadata.packages_distributions().items()
        if module.isidentifier() and not {canonicalize_name(d) for d in dists} & closure
    )
    assert "pytest" in blocked and "moto" not in blocked
    sql = "SELECT COUNT(*) AS n FROM drive WHERE PK = 'DRIVE#alice'"
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            BLOCKER,
            ",".join(blocked),
            "--local",
            "--format",
            "json",
            "-e",
            sql,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)[0]["n"] > 0


def test_help_reads_a_grammar_the_package_ships() -> None:
    """`help SELECT` reads dynosql/repl/grammar.md: in a checkout a link to grammar/README.md,
    in a wheel a copy (package data; pip's build copies the link's target)."""
    from pathlib import Path

    from dynosql.repl import grammar_help

    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib

    root = Path(__file__).resolve().parent.parent
    assert grammar_help.GRAMMAR.parent == root / "dynosql" / "repl"
    assert grammar_help.GRAMMAR.resolve() == (root / "grammar" / "README.md").resolve()
    data = tomllib.loads((root / "pyproject.toml").read_text())
    shipped = data["tool"]["setuptools"]["package-data"]["dynosql"]
    assert "repl/grammar.md" in shipped
    assert grammar_help.syntax("SELECT")[0].startswith("select")
