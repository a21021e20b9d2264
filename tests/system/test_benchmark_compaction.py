"""Benchmark scenario 5 (major compaction vs a plain Spark rewrite) at a tiny size: it runs, both contenders
end with the same rows, and the compaction leaves exactly one base (no timing is asserted)."""

from __future__ import annotations

from benchmarks.runner import run_scenario
from benchmarks.scenarios import OURS, SCENARIOS

TINY = 2_000


def test_major_compaction_scenario_runs_and_agrees_with_the_rewrite(spark, tmp_path) -> None:
    assert "major_compaction" in SCENARIOS
    result = run_scenario(spark, "major_compaction", data_dir=tmp_path, rows=TINY, repeat=1, warmup=0)
    assert list(result["contenders"]) == [OURS, "spark-rewrite"]
    assert result["same_contents"] == {"spark-rewrite": True}
    assert result["contents"][OURS]["rows"] == TINY - 5 * TINY // 500
    after = result["notes"]["acid_directories_after"]
    assert [d for d in after if d.startswith("base_")] == ["base_0000011"]
    for stats in result["contenders"].values():
        assert len(stats["seconds"]) == 1 and stats["seconds"][0] > 0
