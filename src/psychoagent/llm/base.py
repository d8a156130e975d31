"""The old home of the LLM layer's contracts, kept so that imports naming `psychoagent.llm.base` keep working:
the types and protocols live in `psychoagent.llm.contracts`, the request helpers in `psychoagent.llm.request`."""

from psychoagent.llm.contracts import *  # noqa: F403  (every name of the contracts, as before)
from psychoagent.llm.contracts import __all__ as _contracts
from psychoagent.llm.request import as_messages, estimate_tokens

__all__ = [*_contracts, "as_messages", "estimate_tokens"]
