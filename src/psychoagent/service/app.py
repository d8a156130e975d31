"""The REST service: a FastAPI app over a `MemoryHub` (one memory file, access serialised by the hub's lock).

Endpoints are `async def`s that call the hub directly on the event loop: the hub lets one request at a time touch
the memory anyway, and handing each one to the thread pool and back cost a quarter to a third of the throughput
(docs/benchmarks.md, "Memory service"). Every error is JSON `{"detail": message naming the field, "field": name}`.
"""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi_offline import FastAPIOffline
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Route

from psychoagent.service.auth import KeyRing
from psychoagent.service.bodies import diagnose
from psychoagent.service.hub import MemoryHub, ServiceError
from psychoagent.service.models import (
    LIMITS,
    BriefRequest,
    ConflictsResponse,
    ErrorBody,
    Health,
    History,
    ObserveRequest,
    RecallRequest,
    RecallResponse,
    SupersedeRequest,
    SupersedeResponse,
    UnitList,
    error_message,
    field_of,
)
from psychoagent.types import Briefing, ConflictStatus, MemoryUnit
from psychoagent.version import __version__

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody, "description": text}
    for code, text in [
        (400, "the body is not valid JSON"),
        (401, "missing or unknown bearer key"),
        (403, "the key may not use this namespace"),
        (404, "no such unit"),
        (409, "the id already exists"),
        (422, "invalid input; `field` names the argument"),
    ]
}

NamespacePath = Annotated[
    str, Path(min_length=1, max_length=200, pattern=r"^[^/\x00-\x1f\x7f]*\S[^/\x00-\x1f\x7f]*$")
]
IdPath = Annotated[str, Path(min_length=1, max_length=LIMITS.max_id_chars, pattern=r"^[^/\x00-\x1f\x7f]+$")]


_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


def _error(status: int, message: str, field: str | None) -> JSONResponse:
    return JSONResponse(status_code=status, content={"detail": message, "field": field})


def create_app(hub: MemoryHub, keys: KeyRing | None = None, *, close_on_shutdown: bool = False) -> FastAPI:
    """The service over `hub`; with `keys`, every /v1 call needs a bearer key that grants the namespace."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        if close_on_shutdown:
            hub.close()

    app = FastAPIOffline(  # /docs and /redoc from the package's own files: they render with no internet
        title="PsychoAgent memory",
        version=__version__,
        description="Affect-aware, conflict-aware memory for agents: observe, recall, brief, supersede, forget.",
        lifespan=lifespan,
    )
    bearer = HTTPBearer(auto_error=False)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        err = exc.errors()[0]
        if err.get("type") == "json_invalid":
            where = err.get("loc", ("body", "?"))[-1]
            return _error(422, f"field 'body': not valid JSON (at character {where})", "body")
        field = field_of(tuple(err.get("loc", ())))
        return _error(422, f"field {field!r}: {error_message(err)}", field)

    @app.exception_handler(ServiceError)
    async def _service(request: Request, exc: ServiceError) -> JSONResponse:
        return _error(exc.status, exc.message, exc.field)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400 and request.method in _BODY_METHODS:  # a body FastAPI could not parse
            problem = diagnose(await request.body())
            return _error(problem.status, problem.message, problem.field)
        response = _error(exc.status_code, str(exc.detail), None)
        response.headers.update(exc.headers or {})
        if exc.status_code == 405:  # list every method of the path, not only those of the first route matched
            path = request.url.path
            methods = {m for r in routes if r.path_regex.match(path) for m in (r.methods or ())}
            response.headers["Allow"] = ", ".join(sorted(methods))
        return response

    async def authorise(
        ns: NamespacePath, creds: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
    ) -> str:
        assert keys is not None
        if creds is None:
            raise ServiceErrorWithStatus(
                401, "header 'Authorization': a bearer key is required", "Authorization"
            )
        allowed = keys.allows(creds.credentials, ns)
        if allowed is None:
            raise ServiceErrorWithStatus(401, "header 'Authorization': unknown bearer key", "Authorization")
        if not allowed:
            raise ServiceErrorWithStatus(403, f"field 'ns': this key may not use namespace {ns!r}", "ns")
        return ns

    async def open_namespace(ns: NamespacePath) -> str:
        return ns

    # Without keys the server binds to loopback only and declares no security scheme.
    Ns = Annotated[str, Depends(authorise if keys is not None else open_namespace)]
    v1 = APIRouter(prefix="/v1/namespaces/{ns}", responses=ERRORS)

    @v1.post("/memories", response_model=MemoryUnit, status_code=201, summary="observe one event")
    async def observe(ns: Ns, req: ObserveRequest) -> MemoryUnit:
        return hub.observe(ns, req)

    @v1.get("/memories", response_model=UnitList, summary="list units in insertion order")
    async def list_units(
        ns: Ns,
        offset: Annotated[int, Query(ge=0, le=10**9)] = 0,
        limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    ) -> UnitList:
        return hub.page(ns, offset, limit)

    @v1.post("/recall", response_model=RecallResponse, summary="hybrid recall with score parts and affect")
    async def recall(ns: Ns, req: RecallRequest) -> RecallResponse:
        return RecallResponse(hits=hub.recall(ns, req))

    @v1.post("/brief", response_model=Briefing, summary="conflict-aware briefing for a decision")
    async def brief(ns: Ns, req: BriefRequest) -> Briefing:
        return hub.brief(ns, req)

    @v1.get("/memories/{id}", response_model=MemoryUnit, summary="one unit")
    async def get(ns: Ns, id: IdPath) -> MemoryUnit:
        return hub.get(ns, id)

    @v1.get("/memories/{id}/history", response_model=History, summary="the unit's versions, edges, conflicts")
    async def unit_history(ns: Ns, id: IdPath) -> History:
        return hub.history(ns, id)

    @v1.delete("/memories/{id}", response_model=MemoryUnit, summary="forget: erase content, keep a tombstone")
    async def forget(
        ns: Ns, id: IdPath, reason: Annotated[str, Query(max_length=2000, pattern=r"^[^\x00]*$")] = ""
    ) -> MemoryUnit:
        return hub.forget(ns, id, reason)

    @v1.get("/conflicts", response_model=ConflictsResponse, summary="conflict records, oldest first")
    async def conflicts(ns: Ns, status: ConflictStatus | None = None) -> ConflictsResponse:
        return ConflictsResponse(conflicts=hub.conflicts(ns, status))

    @v1.post("/supersede", response_model=SupersedeResponse, summary="replace a fact, keeping both")
    async def supersede(ns: Ns, req: SupersedeRequest) -> SupersedeResponse:
        old, new = hub.supersede(ns, req)
        return SupersedeResponse(old=old, new=new)

    app.include_router(v1)
    routes: list[APIRoute | Route] = [r for r in v1.routes if isinstance(r, APIRoute)]

    @app.get("/healthz", response_model=Health, summary="liveness")
    async def healthz() -> Health:
        with hub.lock:
            version = getattr(hub.memory.store, "schema_version", None)
        return Health(status="ok", version=__version__, schema_version=version)

    routes += [r for r in app.routes if isinstance(r, APIRoute | Route) and r.methods]

    return app


class ServiceErrorWithStatus(ServiceError):
    """A ServiceError with an explicit status (authentication and authorisation)."""

    def __init__(self, status: int, message: str, field: str | None = None) -> None:
        super().__init__(message, field)
        self.status = status
