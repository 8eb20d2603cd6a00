"""Renderers: IR -> source text, one per target."""
