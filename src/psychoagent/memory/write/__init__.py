"""The write path: units built from observed texts, conflicts with stored units planned, one transaction to store
them; explicit supersession and forgetting."""
