#!/usr/bin/env bash
# Set up the environment (once) and run every check: lint, format, types, tests (unit + integration).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e ".[dev,local,server,explore,mcp,langchain,llamaindex,openai-agents,postgres,ray,docs]"
# A llama.cpp build for the host CPU can crash on CPUs that advertise AMX / AVX-512 without running them:
# probe it in a child process and, if it dies, rebuild once with a portable AVX2 instruction set.
if ! .venv/bin/python scripts/check_llama.py >/dev/null 2>&1; then
  echo "llama-cpp-python failed its probe; rebuilding it for AVX2 (a few minutes)"
  CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF" \
    .venv/bin/python -m pip install -q --force-reinstall --no-deps --no-cache-dir \
    "llama-cpp-python==$(.venv/bin/python -c 'import importlib.metadata as m; print(m.version("llama-cpp-python"))')"
  .venv/bin/python scripts/check_llama.py >/dev/null
fi
.venv/bin/ruff check src tests benchmarks examples
.venv/bin/ruff format --check src tests benchmarks examples
.venv/bin/mypy
.venv/bin/lint-imports --no-cache
.venv/bin/python -m pytest "$@"
