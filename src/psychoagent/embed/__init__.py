"""Embedders: text -> unit-norm float32 vectors. One protocol, several backends (e5, hash, static,
sentence-transformers, OpenAI-compatible), all imported lazily; shared by memory and the heuristic appraiser."""

from psychoagent.embed.cache import EmbeddingCache, content_hash
from psychoagent.embed.contracts import Embedder
from psychoagent.embed.hashing import HashingEmbedder
from psychoagent.embed.models import (
    E5Embedder,
    OpenAIEmbedder,
    SentenceTransformerEmbedder,
    StaticEmbedder,
    get_embedder,
)
from psychoagent.embed.vectors import normalise, normalised_similarity

__all__ = [
    "E5Embedder",
    "Embedder",
    "EmbeddingCache",
    "HashingEmbedder",
    "OpenAIEmbedder",
    "SentenceTransformerEmbedder",
    "StaticEmbedder",
    "content_hash",
    "get_embedder",
    "normalise",
    "normalised_similarity",
]
