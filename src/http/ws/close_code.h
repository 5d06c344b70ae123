// CloseCode: WebSocket close status codes (RFC 6455 §7.4) and the close frame's payload.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace slipstream::http::ws {

/// The codes this engine sends or reports. Others in 1000-1014 and 3000-4999 may arrive from peers.
enum CloseCode : std::uint16_t {
    kCloseNormal = 1000,
    kCloseGoingAway = 1001,
    kCloseProtocolError = 1002,
    kCloseUnsupportedData = 1003,
    kCloseNoStatus = 1005,  // reported when a close frame had no payload; never sent
    kCloseAbnormal = 1006,  // reported when the connection dropped without a close frame; never sent
    kCloseInvalidPayload = 1007,
    kClosePolicyViolation = 1008,
    kCloseMessageTooBig = 1009,
    kCloseMandatoryExtension = 1010,
    kCloseInternalError = 1011,
    kCloseServiceRestart = 1012,
    kCloseTryAgainLater = 1013,
};

/// True for a code a peer may put on the wire: 1000-1003, 1007-1014 and 3000-4999.
bool is_valid_wire_close_code(std::uint32_t code);

/// A close frame's payload: a 2-byte code and a UTF-8 reason, or empty.
struct ClosePayload {
    std::uint16_t code = kCloseNoStatus;
    std::string_view reason;
};

/// Outcome of parsing a received close payload: 0 when valid, else the close code to fail with
/// (1002 for a 1-byte payload or an invalid code, 1007 for a reason that is not UTF-8).
std::uint16_t parse_close_payload(std::string_view payload, ClosePayload* out);

/// Builds the payload of a close frame. The reason is cut at a UTF-8 boundary to fit 123 bytes.
/// A code of kCloseNoStatus yields an empty payload.
std::string make_close_payload(std::uint16_t code, std::string_view reason);

}  // namespace slipstream::http::ws
