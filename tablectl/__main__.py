import sys

from tablectl.cli import main

sys.exit(main())
