"""`psychoagent explore`: a local web app to look inside a run's agents (what each remembered, felt, recalled and
decided) and inside a memory file (recall with score parts, conflicts, the provenance graph, the past)."""
