// Handshake: validation of a WebSocket upgrade request (RFC 6455 §4.2.1) and the Sec-WebSocket-Accept value.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace slipstream::http::ws {

/// Sec-WebSocket-Accept for a client's Sec-WebSocket-Key: base64(SHA-1(key + GUID)).
std::string accept_key(std::string_view client_key);

/// True when `list` (a comma-separated header value, e.g. Connection) holds `token`, case-insensitive.
bool header_has_token(std::string_view list, std::string_view token);

/// Collects the upgrade-related headers of a request, in any order; repeated list headers are joined.
class UpgradeRequest {
  public:
    /// Offers one header field (any name; unrelated ones are ignored).
    void add_header(std::string_view name, std::string_view value);

    /// True when the request asks for a WebSocket (an Upgrade header naming "websocket").
    bool wants_websocket() const;

    std::string_view key() const { return key_; }
    /// Every Sec-WebSocket-Extensions value, joined with ", ".
    std::string_view extensions() const { return extensions_; }
    /// Every Sec-WebSocket-Protocol value, joined with ", ".
    std::string_view protocols() const { return protocols_; }

  private:
    friend struct HandshakeCheck;
    std::string_view upgrade_;
    std::string connection_;
    std::string_view key_;
    std::string_view version_;
    std::string extensions_;
    std::string protocols_;
    int key_count_ = 0;
    int version_count_ = 0;
};

/// The verdict on an upgrade request. `status` is 101 when it may be upgraded; else the HTTP status to
/// answer with (400, 405 or 426) and `error` saying why. 426 answers carry `Sec-WebSocket-Version: 13`.
struct HandshakeResult {
    int status = 101;
    std::string_view error;
    std::string accept;  // Sec-WebSocket-Accept when status is 101
};

/// `method` as sent; `http11` true for HTTP/1.1 requests (1.0 cannot upgrade).
HandshakeResult check_handshake(std::string_view method, bool http11, const UpgradeRequest& request);

/// The verdict on an HTTP/2 extended CONNECT with `:protocol websocket` (RFC 8441 §5): status 200 when the
/// stream may be opened; else 400 and why. There is no key to answer, and no Upgrade field to send a 426
/// with: a missing, repeated or other Sec-WebSocket-Version is a 400 (answered with `Sec-WebSocket-Version: 13`).
HandshakeResult check_extended_connect(const UpgradeRequest& request);

/// Picks the first protocol of the client's list that `supported` (a comma-separated list) also names;
/// empty when none. The server must answer with exactly one of the client's values, or none.
std::string_view select_subprotocol(std::string_view offered, std::string_view supported);

/// The items of a Sec-WebSocket-Protocol list, in order (each trimmed; empty items dropped).
std::vector<std::string> split_subprotocols(std::string_view offered);

/// True when an application may add `name: value` to a handshake answer: `name` an RFC 9110 token and
/// not a field the engine writes (Upgrade, Connection, Sec-WebSocket-*, Content-Length,
/// Transfer-Encoding), `value` without CR, LF or NUL.
bool is_valid_answer_header(std::string_view name, std::string_view value);

}  // namespace slipstream::http::ws
