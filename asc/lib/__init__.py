"""pyasc's host-side libraries at their pyasc import paths: `asc.lib.runtime` (streams, devices, the SoC) and
`asc.lib.host` (the Matmul tilings, docs/pyasc.md "Host tiling")."""
