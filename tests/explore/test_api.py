"""The explorer's JSON API on a real server on loopback: the run, its agents and their months, the memory
browser, errors as JSON and the OpenAPI page."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path
from typing import Any

import httpx

from psychoagent.explore.app import create_app
from psychoagent.explore.index import RunIndex
from psychoagent.service.background import serve_in_thread


def _copy_without_cache(run_dir: Path, tmp_path: Path) -> Path:
    """A copy of the run without its explorer cache, so that it is opened for the first time."""
    fresh = tmp_path / "run"
    shutil.copytree(run_dir, fresh, ignore=shutil.ignore_patterns(".explore"))
    return fresh


def _traced(client: Any) -> dict[str, Any]:
    """The first agent with traced decisions and a conflict."""
    rows = client.get("/api/agents").json()
    return next(r for r in rows if r["decisions"] and r["conflicts"])


def test_run_gives_summary_config_macro_and_shocks(client: Any) -> None:
    body = client.get("/api/run").json()
    assert body["ticks"] == 30 and body["agents"] == 12
    assert body["shocks"][0]["start"] == 13
    assert body["config"]["policy"] == "cognitive"
    assert len(body["macro"]["unemployment"]) == 30
    assert body["assets"] and body["mind_events"]["mind.decision"] > 0


def test_agents_list_every_household_with_traits_and_counts(client: Any) -> None:
    rows = client.get("/api/agents").json()
    assert sorted(r["id"] for r in rows) == list(range(12))
    row = rows[0]
    for key in ("persona", "wealth", "employed", "risk_preference", "valence", "conflicts", "memories"):
        assert key in row
    assert all(r["memories"] > 0 for r in rows)


def test_an_agent_has_persona_series_memories_and_conflicts_with_both_sides(client: Any) -> None:
    who = _traced(client)["id"]
    page = client.get(f"/api/agents/{who}").json()
    assert len(page["persona"]["tick"]) == 30 and len(page["persona"]["risk_preference"]) == 30
    assert page["memories"] and {"valence", "arousal", "conflict"} <= set(page["memories"][0])
    conflict = page["conflicts"][0]
    assert conflict["a"] and conflict["b"] and conflict["a"] != conflict["b"] and conflict["current"] == "b"


def test_a_month_gives_the_briefing_and_the_decision_through_the_guardrails(client: Any) -> None:
    who = _traced(client)["id"]
    month = client.get(f"/api/agents/{who}").json()["decisions"][-1]["tick"]
    body = client.get(f"/api/agents/{who}/month/{month}").json()
    trace = body["decision"]
    assert trace["briefing"].startswith("Persona:")
    assert trace["decision"]["type"] in {"DECIDE", "WAIT", "ANALYZE", "NEGOTIATE"}
    for key in ("approved", "adjusted", "rejected", "vetoed"):
        assert isinstance(trace.get(key, []), list)
    recalled = trace["recalled"]
    assert recalled and all("score" in r and "valence" in r and r["tick"] <= month for r in recalled)
    for m in body["decided_months"]:  # lists written once ("recalled_as": month) are resolved for every month
        again = client.get(f"/api/agents/{who}/month/{m}").json()["decision"]
        assert isinstance(again["recalled"], list) and isinstance(again["beliefs"], list)
        assert not {k for k in again if k.endswith("_as")}


def test_a_missing_agent_is_a_404_with_a_json_error(client: Any) -> None:
    for path in ("/api/agents/999", "/api/agents/999/month/3"):
        r = client.get(path)
        assert r.status_code == 404
        assert "no agent 999" in r.json()["detail"] and r.json()["field"] == "agent_id"
    r = client.get("/api/agents/abc")
    assert r.status_code == 422 and r.json()["field"] == "agent_id"


def test_memory_search_shows_hits_with_every_score_part(client: Any) -> None:
    hits = client.get("/api/memory/search", params={"q": "job at the bakery", "namespace": "alice"}).json()
    assert hits and "bakery" in hits[0]["text"]
    assert hits[0]["parts"] and all(isinstance(v, float) for v in hits[0]["parts"].values())


def test_memory_state_at_a_past_time_and_conflicts_and_graph(client: Any) -> None:
    assert client.get("/api/memory/namespaces").json() == [{"name": "alice", "units": 4}]
    then = client.get("/api/memory/units", params={"namespace": "alice", "at": "2024-02-15T00:00:00Z"}).json()
    assert [u["text"] for u in then["units"]] == ["Alice lives in Berlin.", "I love my job at the bakery."]
    now = client.get("/api/memory/units", params={"namespace": "alice"}).json()
    assert now["total"] == 4
    conflicts = client.get("/api/memory/conflicts", params={"namespace": "alice"}).json()
    assert any("love" in c["a"]["text"] and "hate" in c["b"]["text"] for c in conflicts)
    paris = next(u for u in now["units"] if "Paris" in u["text"])
    graph = client.get(f"/api/memory/graph/{paris['id']}", params={"namespace": "alice"}).json()
    assert "supersedes" in {e["type"] for e in graph["edges"]}
    assert {n["text"] for n in graph["nodes"]} == {"Alice moved to Paris.", "Alice lives in Berlin."}
    assert client.get("/api/memory/graph/nope", params={"namespace": "alice"}).status_code == 404


def test_every_route_is_documented_and_the_docs_page_is_offline(client: Any) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/api/run", "/api/agents", "/api/agents/{agent_id}", "/api/agents/{agent_id}/month/{month}",
                 "/api/memory/search", "/api/memory/conflicts", "/api/memory/graph/{unit_id}"):  # fmt: skip
        assert path in paths
    docs = client.get("/docs").text
    assert "cdn" not in docs.lower() and "/static-offline-docs/" in docs


def test_the_page_and_its_assets_come_from_the_package(client: Any) -> None:
    page = client.get("/").text
    assert "/static/app.js" in page and "http" not in page.replace("http-equiv", "")
    assert client.get("/static/plotly.min.js").text.lstrip().startswith("/**")
    assert client.get("/static/nope.js").status_code == 404


def test_a_first_open_in_the_background_answers_503_until_indexed(
    run_dir: Any, tmp_path: Any, monkeypatch: Any
) -> None:
    """The overview answers at once; the table and pages say 503 (retry) until the events are indexed."""
    fresh = _copy_without_cache(run_dir, tmp_path)
    release, build = threading.Event(), RunIndex.build

    def held(self: RunIndex) -> None:
        release.wait(60)
        build(self)

    monkeypatch.setattr(RunIndex, "build", held)
    index = RunIndex.open(fresh, background=True)
    with serve_in_thread(create_app(index, None)) as url, httpx.Client(base_url=url, timeout=30) as client:
        assert client.get("/api/run").json()["indexing"] is True
        busy = client.get("/api/agents")
        assert busy.status_code == 503 and "indexing" in busy.json()["detail"]
        release.set()
        assert index.ready.wait(60)
        assert len(client.get("/api/agents").json()) == 12
        assert "indexing" not in client.get("/api/run").json()
        assert index.paged.wait(60) and client.get("/api/agents/3").json()["id"] == 3
    assert (fresh / ".explore" / "index.json").is_file()


def test_the_table_answers_while_the_agents_events_are_read_and_pages_say_503(
    run_dir: Any, tmp_path: Any, monkeypatch: Any
) -> None:
    """After the column reads the table answers; an agent's page and months wait (503) for the events pages need."""
    fresh = _copy_without_cache(run_dir, tmp_path)
    release, hold = threading.Event(), RunIndex._hold

    def held(self: RunIndex, agents: Any) -> None:
        release.wait(60)
        hold(self, agents)

    monkeypatch.setattr(RunIndex, "_hold", held)
    index = RunIndex.open(fresh, background=True)
    with serve_in_thread(create_app(index, None)) as url, httpx.Client(base_url=url, timeout=30) as client:
        assert index.ready.wait(60) and len(client.get("/api/agents").json()) == 12
        for path in ("/api/agents/3", "/api/agents/3/month/5"):
            busy = client.get(path)
            assert busy.status_code == 503 and "by agent" in busy.json()["detail"]
        assert not (fresh / ".explore" / "index.json").exists()
        release.set()
        assert index.paged.wait(60)
        assert client.get("/api/agents/3/month/5").json()["decision"]["tick"] == 5
    assert (fresh / ".explore" / "index.json").is_file()
