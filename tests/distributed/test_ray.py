"""The Ray backend on a real local cluster (2 CPUs, loopback): the acceptance commands of the scale issue at
small size write the same files as their local counterparts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from psychoagent.cli import app
from tests.distributed.runfiles import different_files

ray = pytest.importorskip("ray")

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """A local Ray of 2 CPUs bound to 127.0.0.1, shared by the tests of this module (they reuse it)."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.1",
             object_store_memory=128 * 1024 * 1024)  # fmt: skip
    yield ray
    ray.shutdown()


def _run(args: list[str]) -> None:
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output


def test_simulate_on_ray_shards_writes_the_local_files(tmp_path: Path, cluster: Any) -> None:
    size = ["--agents", "60", "--ticks", "12", "--policy", "cognitive", "--seed", "4"]
    _run(["simulate", *size, "--out", str(tmp_path / "local")])
    _run(["simulate", *size, "--backend", "ray", "--shards", "2", "--out", str(tmp_path / "ray")])
    assert different_files(tmp_path / "local", tmp_path / "ray") == []
    assert cluster.is_initialized()  # the run used the cluster it found and left it running


def test_experiment_as_ray_tasks_writes_the_local_files(tmp_path: Path, cluster: Any) -> None:
    size = ["--seeds", "2", "--variants", "full,persona", "--agents", "20", "--ticks", "6"]
    _run(["experiment", *size, "--out", str(tmp_path / "local" / "exp")])
    _run(["experiment", *size, "--backend", "ray", "--out", str(tmp_path / "ray" / "exp")])
    assert len(list((tmp_path / "ray" / "exp" / "runs").glob("*/seed-*/macro.parquet"))) == 4
    assert different_files(tmp_path / "local" / "exp", tmp_path / "ray" / "exp", experiment=True) == []
