"""The runs tests use the shared fixtures of tests/conftest.py (demo sets, a researcher client, the
operator's model and run-files folders)."""
