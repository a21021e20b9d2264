"""Test helpers, imported as ``tests.support.<module>``: ACID file readers and invariants, the event-file
cases shared by both writers' tests, the model-based test's SQL renderer, throw-away store databases and
the paths of the fixture files kept in ``tests/fixtures``."""
