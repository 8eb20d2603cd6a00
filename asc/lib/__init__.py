"""pyasc's host-side libraries at their pyasc import paths (`asc.lib.runtime`)."""
