"""The explorer tests use the shared fixtures of tests/conftest.py (researcher, annotator clients)."""
