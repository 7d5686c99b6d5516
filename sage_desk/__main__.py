import sys

from sage_desk.cli import main

sys.exit(main())
