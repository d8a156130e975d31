"""Ray, imported lazily: connect to a cluster by address or start a local one with a bounded size."""

from __future__ import annotations

import logging
import os
from typing import Any

from pydantic import Field

from psychoagent.config import ConfigModel

RAY_EXTRA = "--backend ray needs the 'ray' extra: pip install 'psychoagent[ray]'"


class MissingExtra(ValueError):
    """An optional dependency a requested feature needs is not installed (the message names the extra)."""


class LocalClusterConfig(ConfigModel):
    """Size of the Ray cluster started in-process when no --address is given."""

    max_cpus: int = Field(
        0, ge=0, description="CPUs the local cluster may use (0: all of this machine's, os.cpu_count())"
    )
    object_store_mb: int = Field(
        256,
        ge=80,
        description=(
            "shared-memory object store: a tick's messages are about 0.9 kB per household (9 MB at 10,000; "
            "docs/scaling.md) and are freed once read, while Ray's default (30 % of RAM) would reserve gigabytes "
            "of a shared machine"
        ),
    )


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
