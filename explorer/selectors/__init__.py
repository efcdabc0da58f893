"""Reads of the explorer: one module per dashboard family, and sources.py for other apps' data."""
