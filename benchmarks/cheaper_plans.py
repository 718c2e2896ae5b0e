"""Issue 14's cheaper plans: what each statement reads and consumes, on the example datasets in a
dynalite server this script starts and stops (dynalite reports capacity from item sizes).

    python benchmarks/cheaper_plans.py

Prints one Markdown row per statement: the operations, items read, capacity. Capacity does not
depend on the machine's load. To compare with an older planner, run it with PYTHONPATH
pointing at that version's package (e.g. a `git archive <rev> dynosql | tar -x -C /tmp/old`).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server import Dynalite  # noqa: E402

from dynosql.dynamo import loader  # noqa: E402
from dynosql.session import Session  # noqa: E402

STATEMENTS = [
    "SELECT * FROM drive WHERE PK = 'DRIVE#alice' AND attribute_exists(modified) "
    "ORDER BY modified DESC LIMIT 5",
    "SELECT SK, modified FROM drive WHERE PK = 'DRIVE#alice' "
    "ORDER BY modified DESC NULLS LAST LIMIT 5",
    "SELECT SK, modified FROM drive WHERE PK = 'DRIVE#carol' ORDER BY modified NULLS LAST LIMIT 60",
    "SELECT region, COUNT(*) AS n, AVG(temperature) AS t FROM sensors "
    "WHERE attribute_exists(region) GROUP BY region",
    "SELECT COUNT(*) FROM drive WHERE PK = 'DRIVE#alice' AND attribute_exists(modified)",
    "SELECT COUNT(*) FROM drive WHERE attribute_exists(modified)",
]


def main() -> int:
    server = Dynalite()
    try:
        loader.load(server.client())
        print("| statement | rows | plan | items read | RCU |")
        print("|---|---:|---|---:|---:|")
        for sql in STATEMENTS:
            result = Session(server.client()).execute(sql)
            rows = len(result.all())
            s = result.stats
            print(
                f"| `{sql}` | {rows} | {', '.join(s.operations)} | {s.items_scanned} "
                f"| {s.capacity} |"
            )
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
