"""The economy's side of a cognitive agent: perception of prices, intents, decision schema, guardrails on
orders, bilateral negotiation and semantic market beliefs."""
