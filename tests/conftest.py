"""Test setup: a private kernel cache per test session, and the `tests/` folder importable (shared kernels)."""
import os
import sys
import tempfile

_cache = tempfile.mkdtemp(prefix="asc-test-cache-")
os.environ.setdefault("ASC_CACHE_DIR", _cache)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import asc.config  # noqa: E402

asc.config.reload()
