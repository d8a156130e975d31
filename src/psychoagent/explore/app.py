"""The explorer's web app: a JSON API under /api/ (documented at /docs, rendered offline) over a run's index and,
with a memory file, over a `MemoryHub`; and the page that uses only that API, every asset served from the package.
Errors are JSON `{"detail": message, "field": name}` as in the memory service.
"""

from __future__ import annotations

from datetime import datetime
from functools import cache
from importlib import resources
from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi_offline import FastAPIOffline
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import Request

from psychoagent.explore.config import ExploreConfig
from psychoagent.explore.index import RunIndex
from psychoagent.explore.memory import MemoryBrowser
from psychoagent.version import __version__

STATIC = resources.files("psychoagent.explore") / "static"
ASSETS = {"app.js": "text/javascript", "style.css": "text/css", "index.html": "text/html"}


class Missing(Exception):
    """A 404 with a message naming what is missing and the field at fault."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class Busy(Exception):
    """A 503: the run's events are still being indexed (the answer says so; the page retries)."""


class Broken(Exception):
    """A 500: indexing the run failed (the answer says why; retrying would not help)."""


def _error(status: int, message: str, field: str | None = None) -> JSONResponse:
    return JSONResponse(status_code=status, content={"detail": message, "field": field})


@cache
def plotly_js() -> str:
    """plotly.js as bundled by the `plotly` package (the `explore` extra): charts without a CDN."""
    from plotly.offline import get_plotlyjs

    return str(get_plotlyjs())


def create_app(
    run: RunIndex | None, memory: MemoryBrowser | None, config: ExploreConfig | None = None
) -> Any:
    """The explorer over a run index, a memory browser, or both (at least one)."""
    cfg = config or ExploreConfig()
    app = FastAPIOffline(
        title="PsychoAgent explorer",
        version=__version__,
        description="What each agent of a run remembered, felt, recalled and decided; and a memory file's units.",
    )

    @app.exception_handler(Missing)
    def _missing(_: Request, exc: Missing) -> JSONResponse:
        return _error(404, str(exc), exc.field)

    @app.exception_handler(Busy)
    def _busy(_: Request, exc: Busy) -> JSONResponse:
        return JSONResponse(status_code=503, content={"detail": str(exc), "field": None},
                            headers={"Retry-After": "2"})  # fmt: skip

    @app.exception_handler(Broken)
    def _broken(_: Request, exc: Broken) -> JSONResponse:
        return _error(500, str(exc))

    if memory is not None:  # the memory stack is loaded only with a memory file
        from psychoagent.service.hub import ServiceError

        def _service(_: Request, exc: Exception) -> JSONResponse:
            field = exc.field if isinstance(exc, ServiceError) else None
            return _error(404 if type(exc).__name__ == "NotFound" else 422, str(exc), field)

        app.add_exception_handler(ServiceError, _service)

    @app.exception_handler(RequestValidationError)
    def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        field = str(first.get("loc", ["", ""])[-1])
        return _error(422, f"field {field!r}: {first.get('msg', 'invalid')}", field)

    @app.exception_handler(StarletteHTTPException)
    def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return _error(exc.status_code, str(exc.detail))

    def need_run(paged: bool = False) -> RunIndex:
        """The open run once its table (with `paged`: its agent pages too) can be read."""
        if run is None:
            raise Missing("no run is open: start with `psychoagent explore RUN_DIR`")
        if not run.ready.is_set():
            raise Busy(
                f"indexing the events of {run.run.path} (once; cached beside the run): try again shortly"
            )
        if paged and not run.paged.is_set():
            raise Busy(f"indexing the agents' events of {run.run.path} by agent (once): try again shortly")
        if run.failure is not None:
            raise Broken(run.failure)
        return run

    def need_memory() -> MemoryBrowser:
        if memory is None:
            raise Missing("no memory file is open: start with `psychoagent explore --db MEMORY_FILE`")
        return memory

    api = APIRouter(
        prefix="/api",
        responses={404: {"description": "not found: `detail` says what"},
                   503: {"description": "the run's events are being indexed (first open): retry"}},
    )  # fmt: skip

    @api.get("/info", summary="What is open: a run, a memory file or both")
    def info() -> dict[str, Any]:
        return {"run": run.summary["path"] if run else None, "memory": memory.path if memory else None,
                "version": __version__}  # fmt: skip

    @api.get("/run", summary="The run's summary and configuration, macro series, asset prices and shocks")
    def run_summary() -> dict[str, Any]:
        if run is None:
            raise Missing("no run is open: start with `psychoagent explore RUN_DIR`")
        return run.summary  # while the events are indexed: without the households, `indexing` true

    @api.get("/agents", summary="Every household: id, persona, traits, wealth, employment, affect, counts")
    def agents() -> list[dict[str, Any]]:
        return need_run().rows

    @api.get(
        "/agents/{agent_id}", summary="One household's mind: persona, affect, memories, conflicts, decisions"
    )
    def agent(agent_id: int) -> dict[str, Any]:
        page = need_run(paged=True).agent(agent_id)
        if page is None:
            raise Missing(f"field 'agent_id': no agent {agent_id} in this run", "agent_id")
        return {k: v for k, v in page.items() if k != "traces"}

    @api.get(
        "/agents/{agent_id}/month/{month}",
        summary="The briefing recalled and the decision through the guardrails",
    )
    def agent_month(agent_id: int, month: int) -> dict[str, Any]:
        try:  # on first open it waits for the decisions' texts, read after what pages need
            found = need_run(paged=True).month(agent_id, month)
        except TimeoutError as exc:
            raise Busy(str(exc)) from exc
        if found is None:
            raise Missing(f"field 'agent_id': no agent {agent_id} in this run", "agent_id")
        return found

    @api.get("/memory/namespaces", summary="Namespaces of the memory file with their unit counts")
    def namespaces() -> list[dict[str, Any]]:
        return need_memory().namespaces()

    @api.get("/memory/search", summary="Recall hits with every part of their score")
    def search(
        q: Annotated[str, Query(min_length=1, max_length=2000, description="what to recall")],
        namespace: str = "default",
        k: Annotated[int, Query(ge=1, le=100)] = cfg.search_k,
        at: Annotated[datetime | None, Query(description="the memory as it stood at this time")] = None,
    ) -> list[dict[str, Any]]:
        return need_memory().search(namespace, q, k, at)

    @api.get("/memory/units", summary="Units of a namespace (valid at `at` when given)")
    def units(
        namespace: str = "default",
        at: datetime | None = None,
        offset: Annotated[int, Query(ge=0)] = 0,
        limit: Annotated[int, Query(ge=1, le=1000)] = 200,
    ) -> dict[str, Any]:
        return need_memory().units(namespace, at, offset, limit)

    @api.get("/memory/conflicts", summary="Conflict records of a namespace with both sides")
    def conflicts(namespace: str = "default") -> list[dict[str, Any]]:
        return need_memory().conflicts(namespace)

    @api.get(
        "/memory/graph/{unit_id}", summary="A unit's neighbourhood: supersedes, contradicts, derived_from"
    )
    def graph(
        unit_id: str, namespace: str = "default", depth: Annotated[int, Query(ge=1, le=4)] = cfg.graph_depth
    ) -> dict[str, Any]:
        return need_memory().graph(namespace, unit_id, depth, cfg.graph_nodes)

    app.include_router(api)

    @app.get("/static/plotly.min.js", include_in_schema=False)
    def plotly() -> Response:
        return Response(plotly_js(), media_type="text/javascript", headers={"Cache-Control": "max-age=86400"})

    @app.get("/static/{name}", include_in_schema=False)
    def asset(name: str) -> Response:
        if name not in ASSETS:
            raise Missing(f"no asset {name!r}")
        return Response((STATIC / name).read_bytes(), media_type=ASSETS[name])

    @app.get("/", include_in_schema=False)
    def page() -> Response:
        return Response((STATIC / "index.html").read_bytes(), media_type="text/html")

    return app
