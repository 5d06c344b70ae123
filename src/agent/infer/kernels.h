// The model's numeric kernels: matmul over every weight type, norms, activations, RoPE, half-float conversion.
#pragma once

#include <cstdint>
#include <string_view>

#include "agent/infer/ggml_type.h"
#include "agent/infer/thread_pool.h"

namespace slipstream::agent::infer::kernels {

/// Which SIMD path the kernels took on this CPU: "avx512", "avx2" or "portable" (chosen once, at first use;
/// SLIPSTREAM_INFER_SIMD=portable|avx2 forces a narrower one, for tests and comparisons).
const char* simd_path();

/// True when `name` ("portable", "avx2", "avx512") was built and this CPU has its instructions.
bool simd_path_available(std::string_view name);
/// Switches every later kernel call to `name`; false (and no change) when it is not available. For tests and
/// benchmarks: not to be called while another thread runs kernels.
bool use_simd_path(std::string_view name);

float fp16_to_fp32(uint16_t h);
/// Round to nearest even; overflow gives infinity, NaN stays NaN, tiny values become subnormals or zero.
uint16_t fp32_to_fp16(float f);
float bf16_to_fp32(uint16_t h);
/// Round to nearest even; NaN stays NaN.
uint16_t fp32_to_bf16(float f);

/// Row r of w as floats (cols of them).
void dequantize_row(const WeightMatrix& w, int64_t r, float* out);

/// y[b * w.rows + r] = sum_c W[r][c] * x[b * w.cols + c] for b in [0, batch): every weight type; rows split over
/// the pool. Q4_0 and Q8_0 weights meet x quantized to 8 bits per 32-element block (as GGUF runtimes do), so
/// results match a float reference to ~1e-2 relative, not exactly.
void matmul(const WeightMatrix& w, const float* x, int64_t batch, float* y, ThreadPool& pool);

/// out[i] = x[i] / sqrt(mean(x^2) + eps) * weight[i]; out may equal x.
void rms_norm(float* out, const float* x, const float* weight, int64_t n, float eps);

/// In place: x = softmax(x).
void softmax(float* x, int64_t n);

/// In place: gate[i] = silu(gate[i]) * up[i].
void silu_mul(float* gate, const float* up, int64_t n);

/// dot(a, b) over n floats (attention scores).
float dot(const float* a, const float* b, int64_t n);

/// y[i] += a * x[i] (attention's weighted sum of values).
void axpy(float* y, float a, const float* x, int64_t n);

/// Rotates one head of head_dim values at position pos. inv_freq holds head_dim/2 frequencies (the model's RoPE
/// scaling already applied). neox = false pairs (2i, 2i+1) (Llama in GGUF, llama2.c); true pairs (i, i + d/2)
/// (Qwen2, GPT-NeoX).
void rope(float* head, int64_t head_dim, int64_t pos, const float* inv_freq, bool neox);

}  // namespace slipstream::agent::infer::kernels
