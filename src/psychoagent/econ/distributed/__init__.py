"""Sharded cognitive households: the households' minds live in N shards (in-process objects or Ray actors), the
model and its markets stay on the driver. Per tick the driver sends each shard the public snapshot and its
households' accounts, the shards return approved orders and deal seekers, the driver negotiates and clears, and
the fills go back (`driver.ShardedCognitivePolicy`, `shard.HouseholdShard`, docs/scaling.md)."""
