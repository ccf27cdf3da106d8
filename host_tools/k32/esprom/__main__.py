import sys

from k32.testing.esprom.__main__ import main

sys.exit(main())
