"""Recall: candidates, scoring stages as pure functions, affect modulation, currency of facts, feedback-loop safety,
the recall run behind `Memory.recall` and the conflict-aware briefing."""
