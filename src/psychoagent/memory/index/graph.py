"""The provenance graph: typed edges persisted in SQLite, traversed in memory with networkx."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import networkx as nx

from psychoagent.types import Edge


def build_graph(edges: Iterable[Edge]) -> nx.MultiDiGraph:
    """A directed multigraph; each edge keeps its type as the key and its weight and time as attributes."""
    graph = nx.MultiDiGraph()
    add_edges(graph, edges)
    return graph


def add_edges(graph: nx.MultiDiGraph, edges: Iterable[Edge]) -> None:
    """Add edges to a graph as `build_graph` does (an edge of the same type between the same units replaces it)."""
    for edge in edges:
        graph.add_edge(edge.src, edge.dst, key=edge.type, weight=edge.weight, created_at=edge.created_at)


def neighbourhood(
    graph: nx.MultiDiGraph, start: str | Sequence[str], depth: int = 2, types: Sequence[str] | None = None
) -> dict[str, int]:
    """Nodes within `depth` hops of the start node(s), following edges in both directions; node -> hop count.

    Only edges whose type is in `types` are followed when given. Start nodes have distance 0.
    """
    starts = [start] if isinstance(start, str) else list(start)
    allowed = set(types) if types else None
    dist: dict[str, int] = {s: 0 for s in starts if s in graph}
    frontier = list(dist)
    for hop in range(1, depth + 1):
        nxt: list[str] = []
        for node in frontier:
            for _, other, key in graph.out_edges(node, keys=True):
                if (allowed is None or key in allowed) and other not in dist:
                    dist[other] = hop
                    nxt.append(other)
            for other, _, key in graph.in_edges(node, keys=True):
                if (allowed is None or key in allowed) and other not in dist:
                    dist[other] = hop
                    nxt.append(other)
        frontier = nxt
    return dist
