"""Question generators: COM2, CoCo and RICA items from knowledge-graph paths."""
