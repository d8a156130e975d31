"""`econagent`: the model decides work and consumption, as in EconAgent (Li et al. 2024), inside the cognitive loop.

Each month every deciding household gets its profile (persona described, skill, wage, savings, taxes paid and
received, prices, interest rate, last months' outcomes), its memory briefing (<= 200 words) and the news, and
answers `Propensities`: work and consumption in [0, 1] (steps of 0.02) plus an optional trade. All prompts of a
month go to the model as one batch (cached by the client when a cache is set); an answer that fails validation
falls back to the persona rule for that household (counted by the client). Propensities pass
`guard_propensities` (persona adjustment, inertia, subsistence), a trade passes the cognitive policy's trade
guardrails. After the month, outcomes become memories, an income surprise moves the persona, and every quarter
a reflection is asked for and kept as a semantic memory. Runs with `--llm offline|local|URL`; the offline model
answers with the rules in `offline_rules`, one call per household and month; a language model gets the compact
prompt of `econagent_calls`, and alike households share and reuse its answers (`ModelCallConfig`).

The policy is the cognitive loop with two steps swapped: decide (`econagent_decide.AskForPropensities`) and
reflect (`econagent_reflect.ReflectOnMonths`, which runs the loop's own reflection first).
"""

from __future__ import annotations

from typing import Any

from psychoagent.agent.config import CognitiveConfig
from psychoagent.econ.cognitive import offline_rules  # noqa: F401  (registers the offline model's rules)
from psychoagent.econ.cognitive.config import EconAgentConfig, ModelCallConfig
from psychoagent.econ.cognitive.econagent_decide import AskForPropensities, Ledger
from psychoagent.econ.cognitive.econagent_reflect import ReflectOnMonths
from psychoagent.econ.cognitive.kit import Kit
from psychoagent.econ.cognitive.llm_policy import Fuser
from psychoagent.econ.cognitive.policy import CognitivePolicy
from psychoagent.econ.cognitive.reflect import Reflect
from psychoagent.econ.cognitive.seat import AsksModel, ModelSeat
from psychoagent.econ.config import AgentMemoryConfig, PolicyConfig
from psychoagent.persona import EvolutionEngine


class EconAgentPolicy(AsksModel, CognitivePolicy):
    """Work and consumption from the model, trades through the cognitive loop's guardrails (offline by default).
    EconAgent decides every `econ.decide_every` months, whatever the cognitive settings say."""

    name = "econagent"

    def __init__(self, cfg: PolicyConfig | None = None, cognitive: CognitiveConfig | None = None,
                 client: Any = None, econ: EconAgentConfig | None = None,
                 calls: ModelCallConfig | None = None) -> None:  # fmt: skip
        self.econ = econ or EconAgentConfig()
        self.calls = calls or ModelCallConfig()
        kit = Kit(cognitive or CognitiveConfig(), EvolutionEngine(), AgentMemoryConfig(),
                  pin={"decide_every": self.econ.decide_every})  # fmt: skip
        self.seat = ModelSeat(client)
        self.fuse = Fuser(kit, self.seat)
        self.ledger = Ledger(self.econ, self.calls)
        """Propensities in force, last months and expected incomes, reusable answers."""
        self.decide_step = AskForPropensities(kit, self.seat, self.fuse, self.ledger)
        self.reflect_step = ReflectOnMonths(Reflect(kit), kit, self.seat, self.ledger)
        super().__init__(cfg, kit=kit, decide=self.decide_step, reflect=self.reflect_step)
