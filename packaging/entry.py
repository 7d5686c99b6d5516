"""The desktop bundle's entry point: `sage-desk` frozen by PyInstaller (packaging/sage-desk.spec)."""

import os
import sys

# Before anything imports litellm: read its bundled price map, never fetch one (ENVIRONMENT.md).
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from sage_desk.cli import main  # the environment must be set first

sys.exit(main())
