"""Where shards live: in this process (`LocalShards`, for tests and one machine) or in Ray actors
(`RayShards`, one per shard, on a local or remote cluster). Both implement `econ.contracts.Shards`: one method
called on every shard with its own request, the replies in shard order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from psychoagent.agent.config import CognitiveConfig
from psychoagent.econ.config import AgentMemoryConfig, PolicyConfig
from psychoagent.econ.distributed.shard import HouseholdShard
from psychoagent.persona import EvolutionEngine, Persona


@dataclass
class ShardSpec:
    """What a shard is built from: the policy's configs and engine, its households and their personas."""

    cfg: PolicyConfig
    cognitive: CognitiveConfig
    engine: EvolutionEngine
    households: list[int]
    personas: list[Persona]
    n: int
    base: int
    mind_seed: int
    memory: AgentMemoryConfig = field(default_factory=AgentMemoryConfig)


class LocalShards:
    """Shards as plain objects in this process, called one after the other."""

    def __init__(self, specs: Sequence[ShardSpec]) -> None:
        self.shards = [HouseholdShard(s.cfg, s.cognitive, s.engine, s.households, s.personas, s.n, s.base,
                                      s.mind_seed, False, k == 0, s.memory) for k, s in enumerate(specs)]  # fmt: skip

    def call(self, method: str, requests: Sequence[Any]) -> list[Any]:
        return [getattr(s, method)(r) for s, r in zip(self.shards, requests, strict=True)]

    def close(self) -> None:
        self.shards = []


class RayShards:
    """One Ray actor per shard; a call sends every request at once and waits for all replies."""

    def __init__(self, specs: Sequence[ShardSpec], address: str | None = None) -> None:
        from psychoagent.econ.distributed.cluster import connect

        self.ray, self.started = connect(address, cpus=len(specs))
        total = float(self.ray.cluster_resources().get("CPU", 1.0))
        actor = self.ray.remote(HouseholdShard).options(num_cpus=min(1.0, total / max(len(specs), 1)))
        self.actors = [actor.remote(s.cfg, s.cognitive, s.engine, s.households, s.personas, s.n, s.base,
                                    s.mind_seed, True, k == 0, s.memory) for k, s in enumerate(specs)]  # fmt: skip

    def call(self, method: str, requests: Sequence[Any]) -> list[Any]:
        refs = [getattr(a, method).remote(r) for a, r in zip(self.actors, requests, strict=True)]
        return list(self.ray.get(refs))

    def close(self) -> None:
        for a in self.actors:
            self.ray.kill(a)
        self.actors = []
        if self.started:
            self.ray.shutdown()
            self.started = False
