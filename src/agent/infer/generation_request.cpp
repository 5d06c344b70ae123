// Names of finish reasons, as the OpenAI API spells the common ones.
#include "agent/infer/generation_request.h"

namespace slipstream::agent::infer {

std::string_view finish_reason_name(FinishReason reason) {
    switch (reason) {
        case FinishReason::kNone:
            return "none";
        case FinishReason::kStop:
            return "stop";
        case FinishReason::kLength:
            return "length";
        case FinishReason::kCancelled:
            return "cancelled";
        case FinishReason::kDeadline:
            return "deadline";
        case FinishReason::kError:
            return "error";
    }
    return "unknown";
}

}  // namespace slipstream::agent::infer
