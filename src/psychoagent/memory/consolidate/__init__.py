"""Consolidation (seed 5.3): tiers of a bounded working memory and summaries of routine memories."""
