import sys

from batchsim.cli import main

sys.exit(main())
