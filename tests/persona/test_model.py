"""Persona vector, allocation simplex, archetypes and the prompt rendering."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from psychoagent.persona import ALLOCATION_KEYS, Allocation, Persona, list_archetypes


def test_default_persona_is_neutral_and_its_own_baseline() -> None:
    p = Persona()
    assert p.risk_preference == 0.5 and p.optimism == 0.0
    assert p.baseline.risk_preference == p.risk_preference
    assert p.baseline.allocation == p.allocation
    assert sum(p.allocation.values()) == pytest.approx(1.0)


def test_allocation_reads_like_a_mapping_and_a_model() -> None:
    alloc = Persona.archetype("startup CEO").allocation
    assert set(dict(alloc)) == set(ALLOCATION_KEYS)
    assert alloc["rnd"] == alloc.rnd == 0.5
    with pytest.raises(KeyError, match="allowed"):
        alloc["bonds"]


def test_allocation_off_the_simplex_is_rejected_and_normalised_rescales() -> None:
    with pytest.raises(ValidationError, match="sum to 1"):
        Allocation(consume=0.5, save=0.5, invest=0.5, rnd=0.0)
    alloc = Allocation.normalised(consume=2, save=1, invest=1)
    assert alloc.as_tuple() == (0.5, 0.25, 0.25, 0.0)
    with pytest.raises(ValueError, match="unknown allocation keys"):
        Allocation.normalised(stocks=1.0)


@pytest.mark.parametrize(
    ("field", "value"), [("risk_preference", 1.2), ("optimism", -1.5), ("social_tendency", -0.1)]
)
def test_out_of_range_traits_name_the_field(field: str, value: float) -> None:
    with pytest.raises(ValidationError, match=field):
        Persona(**{field: value})


def test_domain_optimism_must_be_in_range() -> None:
    with pytest.raises(ValidationError, match="tech"):
        Persona(domain_optimism={"tech": 2.0})
    assert Persona(domain_optimism={"tech": -0.4}).optimism_for("tech") == -0.4
    assert Persona(optimism=0.2).optimism_for("energy") == 0.2


def test_archetypes_are_data_and_names_are_forgiving() -> None:
    names = list_archetypes()
    for required in ("startup CEO", "conservative fund manager", "cautious household", "speculator"):
        assert required in names
    assert Persona.list_archetypes() == names
    ceo = Persona.archetype("Startup_CEO")
    assert ceo.name == "startup CEO"
    fund = Persona.archetype("conservative-fund-manager")
    assert ceo.risk_preference > fund.risk_preference
    assert Persona.archetype("speculator", risk_preference=0.6).baseline.risk_preference == 0.6
    with pytest.raises(ValueError, match="choose one of"):
        Persona.archetype("astronaut")


def test_describe_renders_traits_views_and_budget() -> None:
    text = Persona.archetype("cautious household", domain_optimism={"housing": -0.5}).describe()
    assert text.startswith("Cautious household")
    assert "risk-averse" in text and "risk preference 0.20" in text
    assert "pessimistic about housing" in text
    assert "consume 60%" in text and "R&D 0%" in text


def test_persona_is_immutable() -> None:
    with pytest.raises(ValidationError):
        Persona().risk_preference = 0.9  # type: ignore[misc]
