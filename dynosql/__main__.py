"""``python -m dynosql``."""

import sys

from dynosql.cli import main

sys.exit(main())
