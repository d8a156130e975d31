"""Conflicts between facts: what a sentence states, the features and learned scorer of a pair, the optional model
referee, answer comparison, conflict records and the briefing text that shows both sides."""
