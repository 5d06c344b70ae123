"""`python -m slipstream run module:app` — the same as the `slipstream` command."""

import sys

from .cli import main

sys.exit(main())
