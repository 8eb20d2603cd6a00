"""asc's version, in the bottom layer (the disk cache keys on it)."""
__version__ = "0.1.0"
