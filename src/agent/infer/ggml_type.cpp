// Names and validity of GGUF tensor element types.
#include "agent/infer/ggml_type.h"

namespace slipstream::agent::infer {

bool ggml_type_known(uint32_t raw) {
    switch (static_cast<GgmlType>(raw)) {
        case GgmlType::kF32:
        case GgmlType::kF16:
        case GgmlType::kBF16:
        case GgmlType::kQ4_0:
        case GgmlType::kQ8_0:
            return true;
    }
    return false;
}

std::string_view ggml_type_name(uint32_t raw) {
    switch (static_cast<GgmlType>(raw)) {
        case GgmlType::kF32:
            return "f32";
        case GgmlType::kF16:
            return "f16";
        case GgmlType::kBF16:
            return "bf16";
        case GgmlType::kQ4_0:
            return "q4_0";
        case GgmlType::kQ8_0:
            return "q8_0";
    }
    return "unsupported type";
}

}  // namespace slipstream::agent::infer
