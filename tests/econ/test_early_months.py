"""scripts/early_months.py: the worst month of a run's first months, with economy overrides applied."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "early_months.py"


def load() -> ModuleType:
    sys.path.insert(0, str(SCRIPT.parent))
    spec = importlib.util.spec_from_file_location("early_months", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_worst_month_reads_the_run_and_its_overrides() -> None:
    from psychoagent.econ.config import EconomyConfig
    from psychoagent.econ.model import EconomyModel

    script = load()
    model = EconomyModel(seed=4, households=100)
    model.run(3)
    expected = max(row["unemployment"] for row in model.history[1:])
    assert script.worst_month(("persona", "rule", 4, 3, {})) == expected
    # an override reaches the model: the same run without the burn-in
    cold = EconomyModel(EconomyConfig(burn_in=0), seed=4, households=100)
    cold.run(3)
    assert script.worst_month(("persona", "rule", 4, 3, {"burn_in": 0})) == max(
        row["unemployment"] for row in cold.history[1:]
    )


def test_econagent_fields_reach_the_policy() -> None:
    script = load()
    plain = script.worst_month(("econagent", "rule", 4, 2, {}))
    # min_work 1 with a huge buffer keeps every household looking for work: fewer idle on this seed
    keen = script.worst_month(("econagent", "rule", 4, 2, {}), {"min_work": 1.0, "buffer_months": 1e6})
    assert 0.0 <= keen < plain
