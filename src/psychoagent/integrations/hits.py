"""What every adapter attaches to a recalled unit: score and its parts, affect, validity and the conflict records
the unit takes part in (with the other side's text), as plain JSON-like metadata."""

from __future__ import annotations

from typing import Any

from psychoagent.types import ConflictRecord, Recall


def hit_metadata(hit: Recall, records: list[ConflictRecord]) -> dict[str, Any]:
    """One recalled unit's metadata: ids, score parts, times, validity, affect and its conflicts."""
    unit = hit.unit
    mine = [r for r in records if unit.id in (r.side_a, r.side_b)]
    return {
        "id": unit.id,
        "namespace": unit.namespace,
        "kind": unit.kind,
        "score": hit.score,
        "score_parts": dict(hit.parts),
        "created_at": unit.created_at.isoformat(),
        "valid_at": unit.valid_at.isoformat() if unit.valid_at else None,
        "invalid_at": unit.invalid_at.isoformat() if unit.invalid_at else None,
        "current": unit.is_current,
        "valence": unit.affect.valence,
        "arousal": unit.affect.arousal,
        "conflict_intensity": unit.affect.conflict_intensity,
        "affect_reason": unit.affect.reason,
        "conflict_context": unit.conflict_context,
        "conflicts": [
            {
                "id": r.id,
                "kind": r.kind,
                "other": r.side_b if r.side_a == unit.id else r.side_a,
                "other_text": r.description_b if r.side_a == unit.id else r.description_a,
                "newer_side": r.side_b,
                "intensity": r.intensity,
                "status": r.status.value,
            }
            for r in mine
        ],
        "metadata": dict(unit.metadata),
    }
