// DeflateConfig: negotiation of permessage-deflate (RFC 7692 §7) from a client's extension offers.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace slipstream::http::ws {

/// The agreed parameters. "server_*" constrain what this server sends, "client_*" what it receives.
struct DeflateConfig {
    bool server_no_context_takeover = false;  // the server resets its compressor after each message
    bool client_no_context_takeover = false;  // the client resets its compressor after each message
    int server_max_window_bits = 15;          // the server's LZ77 window (9-15)
    bool server_max_window_bits_set = false;  // echo the parameter in the response

    /// The Sec-WebSocket-Extensions response value ("permessage-deflate; ...").
    std::string response_header() const;
};

/// Picks the first acceptable permessage-deflate offer of a Sec-WebSocket-Extensions value (several
/// headers joined with ", "). Offers with unknown, repeated or malformed parameters are declined, as is
/// server_max_window_bits=8 (zlib's raw deflate cannot honour a 256-byte window). nullopt: no deflate.
std::optional<DeflateConfig> negotiate_deflate(std::string_view extensions);

}  // namespace slipstream::http::ws
