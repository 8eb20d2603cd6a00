"""Test setup: a private kernel cache per test session, the `tests/` folder importable (shared kernels), and the
fixtures several test files use."""
import os
import sys
import tempfile

_cache = tempfile.mkdtemp(prefix="asc-test-cache-")
os.environ.setdefault("ASC_CACHE_DIR", _cache)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pytest  # noqa: E402

import asc.environment  # noqa: E402

asc.environment.reload()


@pytest.fixture
def cflags(monkeypatch):
    """cflags("-march=x86-64-v3"): the kernels built in this test get those ASC_CFLAGS (the configuration is
    restored after it)."""
    monkeypatch.setattr(asc.environment, "config", asc.environment.config)

    def use(flags: str):
        monkeypatch.setenv("ASC_CFLAGS", flags)
        asc.environment.reload()
    return use
