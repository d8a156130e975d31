"""Building requests, once for every call: prompt normalisation, the JSON instructions a structured call adds to
its prompt, the feedback turn of a repair round, and token estimates for backends that count none."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from pydantic import BaseModel

from psychoagent.llm.config import StructuredConfig
from psychoagent.llm.contracts import Message, Prompt, WireMode
from psychoagent.llm.schema import prepare_schema, schema_instructions

ENFORCING: tuple[WireMode, ...] = ("grammar", "json_schema")
"""Modes in which the backend itself holds the answer to the schema, so the prompt can show only its outline."""


def as_messages(prompt: Prompt) -> tuple[Message, ...]:
    """Normalise a prompt to a tuple of {"role", "content"} dicts, checking roles."""
    if isinstance(prompt, str):
        return ({"role": "user", "content": prompt},)
    out: list[Message] = []
    for i, msg in enumerate(prompt):
        role, content = msg.get("role"), msg.get("content")
        if role not in ("system", "user", "assistant") or not isinstance(content, str):
            raise ValueError(
                f"message {i}: role must be system|user|assistant and content a string, got {dict(msg)!r}"
            )
        out.append({"role": role, "content": content})
    if not out:
        raise ValueError("messages: at least one message is required")
    return tuple(out)


def estimate_tokens(text: str) -> int:
    """Rough token count (about 4 characters a token) for backends that report none."""
    return max(1, len(text) // 4) if text else 0


@lru_cache(maxsize=256)
def schema_for(output: type[BaseModel], max_enum_range: int) -> dict[str, Any]:
    """The prepared JSON schema of an output model, built once per model and enum range."""
    return prepare_schema(output, max_enum_range)


def with_instructions(
    messages: tuple[Message, ...], schema: dict[str, Any], compact: bool = False
) -> tuple[Message, ...]:
    """Append the JSON instructions to the system message (or add one); every mode gets them, small models need them."""
    hint = schema_instructions(schema, compact=compact)
    if messages[0]["role"] == "system":
        return ({"role": "system", "content": messages[0]["content"] + "\n\n" + hint}, *messages[1:])
    return ({"role": "system", "content": hint}, *messages)


def structured_prompt(
    prompt: Prompt, output: type[BaseModel], config: StructuredConfig, mode: WireMode
) -> tuple[tuple[Message, ...], dict[str, Any]]:
    """The conversation and schema of a structured call: the whole schema in the prompt, or only its outline when
    the wire `mode` enforces the schema itself (`config.hint`)."""
    schema = schema_for(output, config.max_enum_range)
    compact = config.hint == "compact" or (config.hint == "auto" and mode in ENFORCING)
    return with_instructions(as_messages(prompt), schema, compact=compact), schema


def with_feedback(convo: tuple[Message, ...], answer: str, reason: str) -> tuple[Message, ...]:
    """The conversation of a repair round: the invalid answer (cut to 2,000 characters) and why it was invalid."""
    return (
        *convo,
        {"role": "assistant", "content": answer[:2000]},
        {
            "role": "user",
            "content": f"That answer was invalid: {reason}. Reply with only the corrected JSON object.",
        },
    )
