"""python -m atbx.demo: serve a stream of requests with atbx's paged attention (see cli.py for the flags)."""
import sys

from .cli import main

sys.exit(main())
