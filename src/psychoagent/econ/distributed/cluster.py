"""Ray, imported lazily: connect to a cluster by address or start a local one with a bounded size."""

from __future__ import annotations

import logging
import os
from typing import Any

from psychoagent.econ.config import LocalClusterConfig

RAY_EXTRA = "--backend ray needs the 'ray' extra: pip install 'psychoagent[ray]'"


class MissingExtra(ValueError):
    """An optional dependency a requested feature needs is not installed (the message names the extra)."""


def import_ray() -> Any:
    """The `ray` module; MissingExtra naming the extra when it is not installed."""
    try:
        import ray
    except ImportError as exc:
        raise MissingExtra(RAY_EXTRA) from exc
    return ray


def connect(address: str | None = None, cpus: int | None = None,
            cfg: LocalClusterConfig | None = None) -> tuple[Any, bool]:  # fmt: skip
    """Ray connected to the cluster at `address` ('auto' or 'HOST:PORT'), or to a local cluster started with
    `cpus` CPUs (at most the configured maximum and this machine's count); returns (ray, whether we started it)."""
    ray = import_ray()
    if ray.is_initialized():
        return ray, False
    if address:
        ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING)
        return ray, True
    cfg = cfg or LocalClusterConfig()
    limit = min(cfg.max_cpus or os.cpu_count() or 1, os.cpu_count() or 1)
    n = max(1, min(cpus or limit, limit))
    ray.init(num_cpus=n, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING,
             object_store_memory=cfg.object_store_mb * 1024 * 1024)  # fmt: skip
    return ray, True


def check_backend(backend: str, address: str | None) -> None:
    """ValueError naming the option unless `backend` is known and `address` goes with Ray; MissingExtra when
    Ray is asked for and not installed."""
    if backend not in ("local", "ray"):
        raise ValueError(f"--backend must be 'local' or 'ray', got {backend!r}")
    if address and backend != "ray":
        raise ValueError(f"--address {address} needs --backend ray")
    if backend == "ray":
        from importlib.util import find_spec

        if find_spec("ray") is None:
            raise MissingExtra(RAY_EXTRA)
