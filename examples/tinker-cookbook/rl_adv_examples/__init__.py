"""Python companions to the rl-advantages TypeScript library, for runs with the tinker cookbook.

Standard library only. Each module mirrors a TypeScript module and is checked against the same
shared vector files (see ``tests/``).
"""
