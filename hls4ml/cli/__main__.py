"""`python -m hls4ml.cli`: the same as the `hls4ml` command."""

import sys

from hls4ml.cli import main

sys.exit(main())
