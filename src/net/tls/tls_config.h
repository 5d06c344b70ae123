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

/// What a client context is built from (TlsContext::create_client): how the server is verified, what is offered.
struct TlsClientConfig {
    /// Verify the server: its chain against the CA store and its name (or IP) against the one connected to.
    /// Off only for tests and trusted networks: it disables both checks.
    bool verify = true;
    /// PEM file of CA certificates to trust; empty: the system store (OpenSSL's default paths, e.g.
    /// /etc/ssl/certs; SSL_CERT_FILE / SSL_CERT_DIR override them).
    std::string ca_file;
    /// ALPN protocols offered, in preference order ("h2", "http/1.1"); empty: no ALPN.
    std::vector<std::string> alpn;
    /// A client certificate and key (PEM) for servers that ask for one (mTLS); both or neither.
    std::string cert_file;
    std::string key_file;
};

}  // namespace slipstream::net::tls
