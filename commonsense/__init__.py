"""cocoweb's pure-Python domain core: knowledge graphs, queries, questions, scoring, metrics.

Nothing in this package imports Django (a test enforces it); heavy libraries (torch,
transformers) are imported lazily inside the functions that need them.
"""
