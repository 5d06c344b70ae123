// TlsConfig: what a server TLS context is built from (files, ALPN list, session resumption).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace slipstream::net::tls {

/// Certificate and key are PEM files; the certificate file may hold the whole chain (leaf first).
struct TlsConfig {
    std::string cert_file;
    std::string key_file;
    /// PEM file of CA certificates; when set, clients must present a certificate signed by one (mTLS).
    std::string client_ca_file;
    /// ALPN protocols in server preference order ("h2", "http/1.1"). Empty: no ALPN answer.
    std::vector<std::string> alpn;
    /// Server-side session cache (TLS 1.2 session ids); tickets (1.2 and 1.3) need no server state.
    std::size_t session_cache_size = 20'480;
    std::uint32_t session_lifetime_s = 3'600;
};

}  // namespace slipstream::net::tls
