// GgmlType and WeightMatrix: the tensor element types GGUF stores and a view of one 2-D weight.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace slipstream::agent::infer {

/// Element types, numbered as GGUF numbers them (ggml_type). Only these are loaded; others are rejected by name.
enum class GgmlType : uint32_t {
    kF32 = 0,
    kF16 = 1,
    kQ4_0 = 2,
    kQ8_0 = 8,
    kBF16 = 30,
};

/// Elements per block: 32 for Q4_0 and Q8_0, 1 for the float types.
constexpr int64_t ggml_block_elements(GgmlType t) {
    return (t == GgmlType::kQ4_0 || t == GgmlType::kQ8_0) ? 32 : 1;
}

/// Bytes per block: F32 4, F16/BF16 2, Q4_0 18 (f16 scale + 16 nibble bytes), Q8_0 34 (f16 scale + 32 int8).
constexpr std::size_t ggml_block_bytes(GgmlType t) {
    switch (t) {
        case GgmlType::kF32:
            return 4;
        case GgmlType::kF16:
            return 2;
        case GgmlType::kBF16:
            return 2;
        case GgmlType::kQ4_0:
            return 18;
        case GgmlType::kQ8_0:
            return 34;
    }
    return 0;
}

/// Bytes of a row of n elements; n must be a multiple of ggml_block_elements(t).
constexpr std::size_t ggml_row_bytes(GgmlType t, int64_t n) {
    return static_cast<std::size_t>(n / ggml_block_elements(t)) * ggml_block_bytes(t);
}

/// True for the types above; false for any other number read from a file.
bool ggml_type_known(uint32_t raw);
/// "f32", "f16", "bf16", "q4_0", "q8_0"; "type N" for unknown numbers.
std::string_view ggml_type_name(uint32_t raw);

/// A 2-D weight as GGUF lays it out: `rows` rows of `cols` elements, each row contiguous (ne0 = cols).
/// y = W x computes one output per row. The data is borrowed (usually the memory-mapped file).
struct WeightMatrix {
    GgmlType type = GgmlType::kF32;
    const void* data = nullptr;
    int64_t rows = 0;
    int64_t cols = 0;

    std::size_t row_bytes() const { return ggml_row_bytes(type, cols); }
    const uint8_t* row(int64_t r) const { return static_cast<const uint8_t*>(data) + r * row_bytes(); }
};

}  // namespace slipstream::agent::infer
