"""Per-agent persona histories: trait snapshots over time, with the events that moved them."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict

from psychoagent.persona.events import Explanation
from psychoagent.persona.model import Persona


class HistoryEntry(BaseModel):
    """One snapshot: when, the traits at that moment, and the event explanation if an event caused it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    time: float
    traits: dict[str, float]
    explanation: Explanation | None = None


class PersonaHistory:
    """The trajectory of one agent's persona; `record` after each update or tick."""

    def __init__(self, agent_id: str = "", persona: Persona | None = None, time: float = 0.0) -> None:
        self.agent_id = agent_id
        self.entries: list[HistoryEntry] = []
        if persona is not None:
            self.record(persona, time=time)

    def __len__(self) -> int:
        return len(self.entries)

    def __iter__(self) -> Iterator[HistoryEntry]:
        return iter(self.entries)

    def record(
        self, persona: Persona, time: float | None = None, explanation: Explanation | None = None
    ) -> HistoryEntry:
        """Append a snapshot. Time defaults to the event's numeric time, else one tick after the last entry."""
        if time is None and explanation is not None and isinstance(explanation.event.time, int | float):
            time = float(explanation.event.time)
        if time is None and explanation is not None and isinstance(explanation.event.time, datetime):
            time = explanation.event.time.timestamp()
        if time is None:
            time = self.entries[-1].time + 1.0 if self.entries else 0.0
        entry = HistoryEntry(time=float(time), traits=persona.traits(), explanation=explanation)
        self.entries.append(entry)
        return entry

    def times(self) -> list[float]:
        """Time of each snapshot."""
        return [e.time for e in self.entries]

    def series(self, trait: str) -> list[float]:
        """Values of one trait (e.g. 'risk_preference', 'allocation.invest') over time."""
        if self.entries and trait not in self.entries[0].traits:
            raise KeyError(f"unknown trait {trait!r}; choose one of: {', '.join(self.entries[0].traits)}")
        return [e.traits[trait] for e in self.entries]

    def events(self) -> list[tuple[float, Explanation]]:
        """(time, explanation) of every snapshot caused by an event."""
        return [(e.time, e.explanation) for e in self.entries if e.explanation is not None]

    def to_rows(self) -> list[dict[str, Any]]:
        """Flat rows (agent_id, time, traits, event error/impact) for CSV or a DataFrame."""
        rows = []
        for e in self.entries:
            row: dict[str, Any] = {"agent_id": self.agent_id, "time": e.time, **e.traits}
            if e.explanation is not None:
                row.update(error=e.explanation.error, impact=e.explanation.impact, major=e.explanation.major)
            rows.append(row)
        return rows


class PersonaHistories:
    """Histories of many agents, keyed by agent id (created on first use)."""

    def __init__(self) -> None:
        self._by_agent: dict[str, PersonaHistory] = {}

    def __getitem__(self, agent_id: str) -> PersonaHistory:
        if agent_id not in self._by_agent:
            self._by_agent[agent_id] = PersonaHistory(agent_id)
        return self._by_agent[agent_id]

    def __contains__(self, agent_id: object) -> bool:
        return agent_id in self._by_agent

    def __len__(self) -> int:
        return len(self._by_agent)

    def agents(self) -> list[str]:
        """Agent ids with a history, in insertion order."""
        return list(self._by_agent)

    def to_rows(self) -> list[dict[str, Any]]:
        """All agents' rows, agent by agent."""
        return [row for history in self._by_agent.values() for row in history.to_rows()]
