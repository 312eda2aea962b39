"""`python -m handrail` runs the `handrail` command (editors start the server as `<python> -m handrail lsp`)."""

import sys

from handrail.cli import main

sys.exit(main())
