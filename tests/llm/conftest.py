"""Fixtures of the LLM tests: a scriptable fake OpenAI-compatible server and a real llama.cpp server."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from pydantic import BaseModel, Field

from psychoagent.llm import LLMConfig, RetryConfig, Sampling


class Rating(BaseModel):
    """A small bounded object, like an appraisal."""

    label: str = Field(max_length=20)
    valence: int = Field(ge=-3, le=3)
    confidence: float = Field(ge=0.0, le=1.0)


FALLBACK = Rating(label="fallback", valence=0, confidence=0.0)


def fast_config(**overrides: Any) -> LLMConfig:
    """Short timeouts and tiny backoff so failure paths stay fast."""
    base: dict[str, Any] = {
        "timeout_s": 2.0,
        "retry": RetryConfig(attempts=3, backoff_initial_s=0.01, backoff_max_s=0.02),
        "sampling": Sampling(max_tokens=48),
    }
    return LLMConfig(**(base | overrides))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def completion_body(content: str | None, model: str = "fake") -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}
        ],
        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
    }


@dataclass
class FakeServer:
    """Answers /v1/chat/completions from a script of steps; the last step repeats. Records request bodies.

    Steps: ("content", text) | ("status", code) | ("sleep", seconds) | ("raw", text) |
    ("reject_schema", code): that status for response_format json_schema, else a valid answer.
    """

    url: str
    steps: list[tuple[str, Any]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def script(self, *steps: tuple[str, Any]) -> None:
        with self.lock:
            self.steps = list(steps)
            self.requests.clear()

    def next_step(self, body: dict[str, Any]) -> tuple[str, Any]:
        with self.lock:
            self.requests.append(body)
            return self.steps.pop(0) if len(self.steps) > 1 else self.steps[0]


def _handler(server: FakeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, status: int, payload: bytes) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            kind, arg = server.next_step(body)
            valid = json.dumps({"label": "fine", "valence": 1, "confidence": 0.5})
            if kind == "sleep":
                time.sleep(arg)
                self._send(200, json.dumps(completion_body(valid)).encode())
            elif kind == "status":
                self._send(arg, json.dumps({"error": {"message": f"injected {arg}", "type": "x"}}).encode())
            elif kind == "raw":
                self._send(200, arg.encode())
            elif kind == "reject_schema":
                if body.get("response_format", {}).get("type") == "json_schema":
                    self._send(arg, b'{"error": {"message": "json_schema not supported"}}')
                else:
                    self._send(200, json.dumps(completion_body(valid)).encode())
            else:
                self._send(200, json.dumps(completion_body(arg)).encode())

    return Handler


@pytest.fixture(scope="module")
def fake_server() -> Iterator[FakeServer]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    fake = FakeServer(url=f"http://127.0.0.1:{httpd.server_address[1]}/v1", steps=[("content", "{}")])
    httpd.RequestHandlerClass = _handler(fake)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield fake
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="session")
def smollm2_path() -> str:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (extra 'local')")
    from psychoagent.llm.local import bundled_model_path

    return str(bundled_model_path())


@pytest.fixture(scope="session")
def llama_server(smollm2_path: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`python -m llama_cpp.server` with the bundled SmolLM2 on a free loopback port; stopped at the end."""
    port = free_port()
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", smollm2_path, "--host", "127.0.0.1",
           "--port", str(port), "--n_threads", "2", "--model_alias", "smollm2"]  # fmt: skip
    log_path = tmp_path_factory.mktemp("llama_server") / "server.log"
    log = log_path.open("w")
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited with {proc.returncode}: {log_path.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{base}/models", timeout=1) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail("llama_cpp.server did not answer /v1/models within 60 s")
            time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
