"""The settings registry: one parser per Hive setting, values checked when they are set."""

from __future__ import annotations

import pytest

from hiveacid_sql.errors import PlanError
from hiveacid_sql.settings import (
    CARDINALITY_CHECK,
    CLEANER_INTERVAL,
    LOCK_RETRIES,
    REGISTRY,
    TXN_TIMEOUT,
    Settings,
    duration,
    setting_value,
)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("300", 300.0), ("300s", 300.0), ("500ms", 0.5), ("5m", 300.0), ("5min", 300.0), ("5 minutes", 300.0),
     ("1h", 3600.0), ("2d", 172800.0), ("1.5s", 1.5), ("10sec", 10.0), (" 7S ", 7.0)],
)
def test_one_duration_parser_takes_hives_units(text: str, seconds: float) -> None:
    assert duration(text) == pytest.approx(seconds)


def test_a_bare_number_is_in_the_settings_own_unit() -> None:
    assert duration("5000", "ms") == 5.0
    assert setting_value({CLEANER_INTERVAL: "5000"}, CLEANER_INTERVAL) == 5.0
    assert setting_value({}, CLEANER_INTERVAL) == 5.0  # Hive's default 5000ms


@pytest.mark.parametrize("text", ["abc", "", "5 fortnights", "-3s", "1e3"])
def test_not_a_duration(text: str) -> None:
    with pytest.raises(ValueError, match="Not a time value"):
        duration(text)


def test_set_validates_and_keeps_the_old_value() -> None:
    """`SET hive.txn.timeout=abc` used to be stored and broke every later statement."""
    settings = Settings()
    settings.set(TXN_TIMEOUT, "5min")
    assert settings.value(TXN_TIMEOUT) == 300.0 and settings[TXN_TIMEOUT] == "5min"
    with pytest.raises(PlanError) as err:
        settings.set(TXN_TIMEOUT, "abc")
    assert str(err.value) == (
        "'SET hive.txn.timeout=abc' FAILED in validation : Not a time value: 'abc' (e.g. 300s, 500ms, 5min)."
    )
    assert "\n" not in str(err.value)
    assert settings[TXN_TIMEOUT] == "5min" and settings.value(TXN_TIMEOUT) == 300.0


def test_defaults_typed_values_and_unknown_keys() -> None:
    settings = Settings({"my.own.key": "anything at all"})
    assert settings.value(TXN_TIMEOUT) == 300.0 and settings.value(LOCK_RETRIES) == 10
    assert settings.value(CARDINALITY_CHECK) is True
    settings.set(CARDINALITY_CHECK, "FALSE")
    assert settings.value(CARDINALITY_CHECK) is False
    assert dict(settings) == {"my.own.key": "anything at all", CARDINALITY_CHECK: "FALSE"}
    for bad_key, bad in ((LOCK_RETRIES, "many"), (LOCK_RETRIES, "-1"), (CARDINALITY_CHECK, "yes")):
        with pytest.raises(PlanError, match="FAILED in validation"):
            settings.set(bad_key, bad)


def test_every_default_parses() -> None:
    for setting in REGISTRY.values():
        setting.parse(setting.default)
