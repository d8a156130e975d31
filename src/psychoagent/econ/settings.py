"""The run's settings, kept under this name for existing imports: they live in `psychoagent.econ.config`."""

from psychoagent.econ.config import AgentMemoryConfig, SimulationConfig, event_memory

__all__ = ["AgentMemoryConfig", "SimulationConfig", "event_memory"]
