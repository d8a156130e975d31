"""The REST service used over HTTP as a client would: every endpoint, errors naming the field, keys."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.service.conftest import ADMIN_KEY, ALICE_KEY

pytest.importorskip("fastapi", reason="the 'server' extra is not installed")

NS = "/v1/namespaces/alice"


def _observe(client: httpx.Client, text: str, **extra: object) -> dict:
    response = client.post(f"{NS}/memories", json={"text": text, **extra})
    assert response.status_code == 201, response.text
    return response.json()


def test_observe_recall_brief_get_round_trip(client: httpx.Client) -> None:
    berlin = _observe(
        client, "Alice lives in Berlin.", metadata={"topic": "home"}, timestamp="2024-05-01T09:00:00Z"
    )
    _observe(client, "Bob plays chess on Sundays.", id="bob-1")
    assert berlin["metadata"]["topic"] == "home" and berlin["created_at"].startswith("2024-05-01T09:00:00")
    hits = client.post(f"{NS}/recall", json={"query": "Where does Alice live?", "k": 1}).json()["hits"]
    assert [h["unit"]["id"] for h in hits] == [berlin["id"]]
    assert {"dense", "keyword", "relevance"} <= set(hits[0]["parts"]) and "valence" in hits[0]["unit"][
        "affect"
    ]
    filtered = client.post(
        f"{NS}/recall", json={"query": "chess", "where": {"metadata.topic": "home"}}
    ).json()
    assert [h["unit"]["id"] for h in filtered["hits"]] == [berlin["id"]]
    assert client.get(f"{NS}/memories/bob-1").json()["content"] == "Bob plays chess on Sundays."
    assert client.get(f"{NS}/memories").json()["total"] == 2
    assert client.get("/v1/namespaces/other/memories").json() == {"units": [], "total": 0}
    briefing = client.post(f"{NS}/brief", json={"query": "Where does Alice live?", "k": 2}).json()
    assert "Alice lives in Berlin." in briefing["text"] and briefing["memories"]


def test_conflict_supersede_history_and_forget(client: httpx.Client) -> None:
    old = _observe(client, "Alice lives in Berlin.", timestamp="2024-05-01T09:00:00Z")
    new = _observe(client, "Alice moved to Paris.", timestamp="2024-06-01T09:00:00Z")
    conflicts = client.get(f"{NS}/conflicts", params={"status": "unresolved"}).json()["conflicts"]
    assert [(c["side_a"], c["side_b"]) for c in conflicts] == [(old["id"], new["id"])]
    result = client.post(
        f"{NS}/supersede", json={"old_id": new["id"], "text": "Alice moved to Rome.", "reason": "moved again"}
    ).json()
    assert (
        result["old"]["invalid_at"] is not None
        and result["old"]["metadata"]["superseded_reason"] == "moved again"
    )
    history = client.get(f"{NS}/memories/{new['id']}/history").json()
    assert [v["content"] for v in history["versions"]] == [
        "Alice lives in Berlin.", "Alice moved to Paris.", "Alice moved to Rome."
    ]  # fmt: skip
    assert history["conflicts"] and any(e["type"] == "supersedes" for e in history["edges"])
    gone = client.delete(f"{NS}/memories/{old['id']}", params={"reason": "user request"})
    assert gone.status_code == 200
    tomb = client.get(f"{NS}/memories/{old['id']}").json()
    assert tomb["content"] == "[forgotten]" and tomb["metadata"]["forgotten_reason"] == "user request"
    assert "forgotten_at" in tomb["metadata"]
    hits = client.post(f"{NS}/recall", json={"query": "Alice Berlin", "k": 10}).json()["hits"]
    assert old["id"] not in [h["unit"]["id"] for h in hits]
    assert "Berlin" not in client.post(f"{NS}/brief", json={"query": "Where does Alice live?"}).text
    again = client.get(f"{NS}/memories/{new['id']}/history").json()
    assert again["versions"][0]["id"] == old["id"]  # the tombstone keeps the chain whole


def test_errors_are_json_and_name_the_field(client: httpx.Client) -> None:
    _observe(client, "first", id="dup")
    cases = [
        ("post", f"{NS}/memories", {"text": "again", "id": "dup"}, 409, "id"),
        ("post", f"{NS}/memories", {"text": "   "}, 422, "text"),
        ("post", f"{NS}/memories", {"text": "x", "timestamp": 1e20}, 422, "timestamp"),
        ("post", f"{NS}/memories", {"text": "x", "timestamp": True}, 422, "timestamp"),
        ("post", f"{NS}/memories", {"text": "x", "goals": "keep low"}, 422, "goals"),
        ("post", f"{NS}/memories", {"text": "x", "goals": [None]}, 422, "goals.0"),
        ("post", f"{NS}/memories", {"text": "x", "id": ""}, 422, "id"),
        ("post", f"{NS}/memories", {"text": "x", "surprise": 1}, 422, "surprise"),
        ("post", f"{NS}/recall", {"query": "x", "k": "5"}, 422, "k"),
        ("post", f"{NS}/recall", {"query": "x", "k": 0}, 422, "k"),
        ("post", f"{NS}/recall", {"query": "x", "where": {"valence": {"<": "low"}}}, 422, "where"),
        ("post", f"{NS}/recall", {"query": "x", "where": "bogus > 1"}, 422, "where"),
        ("post", f"{NS}/supersede", {"old_id": "dup"}, 422, "text"),
        ("post", f"{NS}/supersede", {"old_id": "missing", "text": "y"}, 404, "old_id"),
        ("post", f"{NS}/supersede", {"old_id": "dup", "new_id": "dup"}, 422, "new_id"),
        ("get", f"{NS}/memories/missing", None, 404, "id"),
        ("get", f"{NS}/memories/missing/history", None, 404, "id"),
        ("delete", f"{NS}/memories/missing", None, 404, "id"),
        ("get", f"{NS}/conflicts?status=maybe", None, 422, "status"),
    ]
    for method, url, body, status, field in cases:
        response = client.request(method, url, json=body)
        assert response.status_code == status, (url, body, response.text)
        data = response.json()
        assert data["field"] == field and f"'{field}'" in data["detail"], (body, data)
    for body, field in [
        (b'{"text": "x", "metadata": {"r": NaN}}', "metadata"),
        (b'{"text": "lone \\ud800 surrogate"}', "text"),  # JSON escapes can spell text UTF-8 cannot hold
        (b'{"text": "x", "metadata": {"k": "\\udfff"}}', "metadata"),
        (b'{"text": ', "body"),
    ]:
        raw = client.post(f"{NS}/memories", content=body, headers={"content-type": "application/json"})
        assert raw.status_code == 422 and raw.json()["field"].startswith(field), (body, raw.text)
    deep = b'{"text": "x", "metadata": ' + b'{"a": ' * 5000 + b"1" + b"}" * 5000 + b"}"
    for path, body, status, field in [
        ("memories", deep, 422, "metadata"),  # past Python's recursion limit: FastAPI alone names no field
        ("memories", b'{"text": "caf\xff", "goals": []}', 400, "text"),  # not UTF-8
        (
            "memories",
            b'{"text": "x", "metadata": {"n": 1' + b"0" * 400 + b"}}",
            422,
            "metadata",
        ),  # past 64 bits
        (
            "recall",
            b'{"query": "' + b"a" * 3_000_000 + b'"}',
            422,
            "query",
        ),  # a body field named like a location
    ]:
        raw = client.post(f"{NS}/{path}", content=body, headers={"content-type": "application/json"})
        data = raw.json()
        assert (raw.status_code, data["field"]) == (status, field), (path, raw.text[:200])
        assert data["detail"].startswith(f"field {field!r}: ") and "Value error" not in data["detail"], data
    assert client.get(f"{NS}/memories").json()["total"] == 1  # nothing half-written


def test_keys_grant_namespaces(keyed_server: str) -> None:
    with httpx.Client(base_url=keyed_server) as anon:
        assert anon.get("/healthz").status_code == 200
        assert anon.get(f"{NS}/memories").status_code == 401
        bad = anon.get(f"{NS}/memories", headers={"Authorization": "Bearer not-a-key-at-all-000"})
        assert bad.status_code == 401
    alice = {"Authorization": f"Bearer {ALICE_KEY}"}
    with httpx.Client(base_url=keyed_server, headers=alice) as c:
        assert c.post(f"{NS}/memories", json={"text": "mine"}).status_code == 201
        denied = c.get("/v1/namespaces/bob/memories")
        assert denied.status_code == 403 and denied.json()["field"] == "ns"
    with httpx.Client(base_url=keyed_server, headers={"Authorization": f"Bearer {ADMIN_KEY}"}) as admin:
        assert admin.get("/v1/namespaces/bob/memories").status_code == 200
        assert admin.get(f"{NS}/memories").json()["total"] == 1


def test_concurrent_writes_and_recalls_lose_nothing(client: httpx.Client, server: str) -> None:
    def work(worker: int) -> list[str]:
        ids = []
        with httpx.Client(base_url=server, timeout=60) as http:
            for n in range(15):
                uid = f"w{worker}-{n}"
                assert (
                    http.post(
                        f"{NS}/memories", json={"text": f"worker {worker} event {n}", "id": uid}
                    ).status_code
                    == 201
                )
                ids.append(uid)
                assert http.post(f"{NS}/recall", json={"query": f"event {n}", "k": 3}).status_code == 200
        return ids

    with ThreadPoolExecutor(max_workers=8) as pool:
        written = {uid for ids in pool.map(work, range(8)) for uid in ids}
    stored = {u["id"] for u in client.get(f"{NS}/memories", params={"limit": 1000}).json()["units"]}
    assert written == stored and len(stored) == 120
