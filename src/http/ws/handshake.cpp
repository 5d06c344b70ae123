// Handshake: header collection, the RFC 6455 checks, and the accept key through OpenSSL's SHA-1.
#include "http/ws/handshake.h"

#include <openssl/evp.h>
#include <openssl/sha.h>

#include "http/ws/token_list.h"

namespace slipstream::http::ws {
namespace {

constexpr std::string_view kGuid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

void join(std::string& list, std::string_view value) {
    if (!list.empty()) list.append(", ");
    list.append(value);
}

// A Sec-WebSocket-Key is the base64 of 16 bytes: 22 base64 characters then "==".
bool valid_key(std::string_view key) {
    if (key.size() != 24 || key[22] != '=' || key[23] != '=') return false;
    for (std::size_t i = 0; i < 22; ++i) {
        char c = key[i];
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
        if (!ok) return false;
    }
    // The last character before the padding carries 2 bits of data and 4 zero bits.
    return std::string_view("AQgw").find(key[21]) != std::string_view::npos;
}

}  // namespace

std::string accept_key(std::string_view client_key) {
    std::string input;
    input.reserve(client_key.size() + kGuid.size());
    input.append(client_key);
    input.append(kGuid);
    unsigned char digest[SHA_DIGEST_LENGTH];
    SHA1(reinterpret_cast<const unsigned char*>(input.data()), input.size(), digest);
    unsigned char encoded[4 * ((SHA_DIGEST_LENGTH + 2) / 3) + 1];
    int n = EVP_EncodeBlock(encoded, digest, SHA_DIGEST_LENGTH);
    return std::string(reinterpret_cast<const char*>(encoded), static_cast<std::size_t>(n));
}

bool header_has_token(std::string_view list, std::string_view token) {
    bool found = false;
    for_each_list_item(list, [&](std::string_view item) {
        if (ascii_iequals(item, token)) found = true;
    });
    return found;
}

void UpgradeRequest::add_header(std::string_view name, std::string_view value) {
    if (ascii_iequals(name, "upgrade")) {
        upgrade_ = value;
    } else if (ascii_iequals(name, "connection")) {
        join(connection_, value);
    } else if (ascii_iequals(name, "sec-websocket-key")) {
        key_ = value;
        ++key_count_;
    } else if (ascii_iequals(name, "sec-websocket-version")) {
        version_ = value;
        ++version_count_;
    } else if (ascii_iequals(name, "sec-websocket-extensions")) {
        join(extensions_, value);
    } else if (ascii_iequals(name, "sec-websocket-protocol")) {
        join(protocols_, value);
    }
}

bool UpgradeRequest::wants_websocket() const {
    return header_has_token(upgrade_, "websocket");
}

struct HandshakeCheck {
    static HandshakeResult run(std::string_view method, bool http11, const UpgradeRequest& r) {
        HandshakeResult out;
        auto reject = [&](int status, std::string_view why) {
            out.status = status;
            out.error = why;
            return out;
        };
        if (method != "GET") return reject(405, "a WebSocket upgrade must use GET");
        if (!r.wants_websocket()) return reject(426, "this route needs a WebSocket upgrade");
        if (!http11) return reject(400, "a WebSocket upgrade needs HTTP/1.1");
        if (!header_has_token(r.connection_, "upgrade")) return reject(400, "Connection must include Upgrade");
        if (r.version_count_ != 1 || r.version_ != "13") return reject(426, "Sec-WebSocket-Version must be 13");
        if (r.key_count_ != 1 || !valid_key(r.key_)) return reject(400, "invalid Sec-WebSocket-Key");
        out.accept = accept_key(r.key_);
        return out;
    }

    static HandshakeResult run_extended_connect(const UpgradeRequest& r) {
        HandshakeResult out;
        out.status = 200;
        if (r.version_count_ != 1 || r.version_ != "13") {
            out.status = 400;
            out.error = "Sec-WebSocket-Version must be 13";
        }
        return out;
    }
};

HandshakeResult check_handshake(std::string_view method, bool http11, const UpgradeRequest& request) {
    return HandshakeCheck::run(method, http11, request);
}

HandshakeResult check_extended_connect(const UpgradeRequest& request) {
    return HandshakeCheck::run_extended_connect(request);
}

std::string_view select_subprotocol(std::string_view offered, std::string_view supported) {
    std::string_view chosen;
    for_each_list_item(offered, [&](std::string_view item) {
        if (!chosen.empty()) return;
        for_each_list_item(supported, [&](std::string_view s) {
            if (chosen.empty() && s == item) chosen = item;  // subprotocol names are case-sensitive
        });
    });
    return chosen;
}

std::vector<std::string> split_subprotocols(std::string_view offered) {
    std::vector<std::string> out;
    for_each_list_item(offered, [&](std::string_view item) { out.emplace_back(item); });
    return out;
}

namespace {
bool is_token_char(char c) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
    return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}
}  // namespace

bool is_valid_answer_header(std::string_view name, std::string_view value) {
    if (name.empty()) return false;
    for (char c : name) {
        if (!is_token_char(c)) return false;
    }
    for (char c : value) {
        if (c == '\r' || c == '\n' || c == '\0') return false;
    }
    static constexpr std::string_view kReserved[] = {"upgrade", "connection", "content-length", "transfer-encoding"};
    for (std::string_view r : kReserved) {
        if (ascii_iequals(name, r)) return false;
    }
    constexpr std::string_view kSecPrefix = "sec-websocket-";
    return !(name.size() >= kSecPrefix.size() && ascii_iequals(name.substr(0, kSecPrefix.size()), kSecPrefix));
}

}  // namespace slipstream::http::ws
