"""Reading an undo journal's lines in tests: the header, then write-ahead intent lines and the
answer lines (key, old image, new image) that follow each write."""

from __future__ import annotations

import json
import os


def answers(path: str | os.PathLike[str]) -> list[dict]:
    """The journal's answer lines that hold images, in order (not headers, intents (which may
    carry the images a write expects), or ``unchanged`` answers)."""
    with open(path, encoding="utf-8") as f:
        lines = [json.loads(line) for line in f if line.strip()]
    return [x for x in lines if "journal" not in x and "new" in x and not x.get("intent")]
