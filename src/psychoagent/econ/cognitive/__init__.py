"""Cognitive household policies: the heuristic `cognitive` policy and the `llm` policy (registered by name)."""
