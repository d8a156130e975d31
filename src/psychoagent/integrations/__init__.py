"""Adapters that plug the memory into agent frameworks (each behind its own extra)."""
