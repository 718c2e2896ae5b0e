"""CI runs what the README tells a new user to run, with every tool pinned.

A green CI run must mean the README's test command passes on a fresh machine: the two commands
are the same line, and every development tool resolves to one exact version (mypy 2.4 once
broke the command on fresh machines while older installs stayed green)."""

from __future__ import annotations

import re
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent


def _readme_test_command() -> str:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Run the tests", 1)[1]
    block = re.search(r"```sh\n(.*?)\n```", section, re.S)
    assert block, "README's 'Run the tests' section has no sh block"
    lines = [line for line in block.group(1).splitlines() if line.strip()]
    assert len(lines) == 1, lines
    return lines[0].strip()


def _ci_commands() -> list[str]:
    lines = (ROOT / ".ci" / "run").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def test_ci_runs_the_readme_test_command():
    assert _readme_test_command() in _ci_commands()


def test_the_test_command_installs_from_the_constraints_file():
    assert "-c constraints.txt" in _readme_test_command()


def _pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, _, version = line.partition("==")
        assert version, f"constraints.txt: {line!r} is not an exact pin"
        pins[re.sub(r"[-_.]+", "-", name).lower()] = version
    return pins


def _name(requirement: str) -> str:
    return re.sub(r"[-_.]+", "-", re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0]).lower()


def test_every_dependency_is_pinned_and_bounded():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins = _pins()
    requirements = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        requirements.extend(extra)
    for requirement in requirements:
        if "python_version <" in requirement:
            continue  # a backport that CI's Python does not install
        name = _name(requirement)
        assert name in pins, f"{name} is not pinned in constraints.txt"
        assert "<" in requirement.split(";")[0], f"{requirement!r} has no tested upper bound"
