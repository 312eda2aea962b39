"""Benchmarks (not part of the test run): `python -m tests.bench` runs them all and prints a table."""
