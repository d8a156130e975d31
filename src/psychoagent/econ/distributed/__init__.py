"""Sharded cognitive households: the households' minds live in N shards (in-process objects or Ray actors), the
model and its markets stay on the driver. Per month the shards run the household loop's steps up to `guard` on
the public snapshot and their households' accounts and return approved orders and deal seekers; the driver runs
`act` (negotiates the deals and submits), the markets clear, and the shards `reflect` on their fills
(`driver.ShardedCognitivePolicy`, `shard.HouseholdShard`, `backends`, `messages`, docs/scaling.md)."""
