"""Benchmarks of hiveacid-sql beside its peers (delta-rs, a plain Spark rewrite), in the same run.

``python -m benchmarks run``; see benchmarks/README.md. Not part of the installed package.
"""
