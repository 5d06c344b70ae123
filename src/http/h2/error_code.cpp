// HTTP/2 error code names.
#include "http/h2/error_code.h"

namespace slipstream::http::h2 {

std::string_view error_code_name(ErrorCode code) {
    static constexpr std::string_view kNames[] = {"NO_ERROR",
                                                  "PROTOCOL_ERROR",
                                                  "INTERNAL_ERROR",
                                                  "FLOW_CONTROL_ERROR",
                                                  "SETTINGS_TIMEOUT",
                                                  "STREAM_CLOSED",
                                                  "FRAME_SIZE_ERROR",
                                                  "REFUSED_STREAM",
                                                  "CANCEL",
                                                  "COMPRESSION_ERROR",
                                                  "CONNECT_ERROR",
                                                  "ENHANCE_YOUR_CALM",
                                                  "INADEQUATE_SECURITY",
                                                  "HTTP_1_1_REQUIRED"};
    auto i = static_cast<std::uint32_t>(code);
    return i < std::size(kNames) ? kNames[i] : "UNKNOWN";
}

}  // namespace slipstream::http::h2
