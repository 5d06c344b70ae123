// ErrorCode: HTTP/2 error codes (RFC 9113 §7) used in RST_STREAM and GOAWAY.
#pragma once

#include <cstdint>
#include <string_view>

namespace slipstream::http::h2 {

enum class ErrorCode : std::uint32_t {
    kNoError = 0x0,
    kProtocolError = 0x1,
    kInternalError = 0x2,
    kFlowControlError = 0x3,
    kSettingsTimeout = 0x4,
    kStreamClosed = 0x5,
    kFrameSizeError = 0x6,
    kRefusedStream = 0x7,
    kCancel = 0x8,
    kCompressionError = 0x9,
    kConnectError = 0xa,
    kEnhanceYourCalm = 0xb,
    kInadequateSecurity = 0xc,
    kHttp11Required = 0xd,
};

/// "NO_ERROR", "ENHANCE_YOUR_CALM", ...; "UNKNOWN" for other values.
std::string_view error_code_name(ErrorCode code);

}  // namespace slipstream::http::h2
