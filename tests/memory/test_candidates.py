"""The nearest stored candidates of a new unit: read from the candidate rows alone, the same rows in the same order
as the partition of the whole column (ties included)."""

from __future__ import annotations

import numpy as np

from psychoagent.memory.write.candidates import Stored, nearest_stored


def test_nearest_stored_is_the_whole_column_partition() -> None:
    rng = np.random.default_rng(1)
    for trial in range(600):
        n_stored, n_batch = int(rng.integers(1, 300)), int(rng.integers(1, 4))
        sims = rng.standard_normal((n_stored, n_batch)).astype(np.float32)
        if trial % 3 == 0:
            sims = np.round(sims, 1).astype(np.float32)  # many equal distances
        if trial % 5 == 0:
            sims[: n_stored // 2] = sims[0]
        eligible = rng.random(n_stored) < (0.05, 0.3, 1.0)[trial % 3]
        if not eligible.any():
            continue
        original = sims.copy()
        np.negative(sims, out=sims)
        sims[~eligible] = np.inf
        stored = Stored(sims, np.flatnonzero(eligible))
        n = min(6, int(eligible.sum()))
        for i in range(n_batch):
            column = np.where(eligible, original[:, i], -np.inf)  # what the search partitioned before
            top = np.argpartition(-column, n - 1)[:n]
            assert np.array_equal(nearest_stored(stored, i, n), top[np.argsort(-column[top])])
