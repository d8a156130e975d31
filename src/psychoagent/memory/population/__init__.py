"""Population memory: the episodic memories of many agents of one run in one columnar store (`memory`), recalled
for every agent deciding in a tick in one vectorised run (`recall`)."""

from psychoagent.memory.population.memory import Batch, PopulationMemory, Recalled, TextTable
from psychoagent.memory.population.recall import Hits, Request, recall_many

__all__ = ["Batch", "Hits", "PopulationMemory", "Recalled", "Request", "TextTable", "recall_many"]
