// TlsContext: one loaded server configuration (certificate, key, CA, ALPN, resumption) shared by connections.
#pragma once

#include <memory>
#include <string>

#include "base/result.h"
#include "net/tls/tls_config.h"

typedef struct ssl_ctx_st SSL_CTX;
typedef struct ssl_st SSL;

namespace slipstream::net::tls {

/// Immutable after create(); shared by every connection and thread (OpenSSL's SSL_CTX is thread-safe for
/// creating connections). Defaults: TLS 1.2 and 1.3 only, ECDHE + AEAD ciphers for 1.2 (Mozilla
/// "intermediate" without DHE), server cipher preference, no renegotiation, no compression, a server
/// session cache plus session tickets, ALPN answered in the server's order.
class TlsContext {
  public:
    /// Loads the files and builds the context. `previous` (the context being replaced on a reload) lends
    /// its session-ticket keys, so tickets issued before the reload still resume. Errors:
    /// kInvalidArgument naming the file and OpenSSL's reason (unreadable file, key does not match, ...).
    /// Any thread (it is control-plane work: file I/O).
    static base::Result<std::shared_ptr<const TlsContext>> create(const TlsConfig& config,
                                                                  const TlsContext* previous = nullptr);
    /// A client context: TLS 1.2 and 1.3, the same suites and groups as the server side, peer verification on
    /// unless config.verify is false (the system CA store, or config.ca_file), ALPN offered in config.alpn's order,
    /// no renegotiation or compression, read ahead. Errors: kInvalidArgument naming the file and OpenSSL's reason
    /// (unreadable CA file, key not matching the certificate, ...). Any thread.
    static base::Result<std::shared_ptr<const TlsContext>> create_client(const TlsClientConfig& config);
    ~TlsContext();
    TlsContext(const TlsContext&) = delete;
    TlsContext& operator=(const TlsContext&) = delete;

    SSL_CTX* native() const { return ctx_; }
    const TlsConfig& config() const { return config_; }
    /// A client context (create_client) and its configuration.
    bool is_client() const { return client_; }
    const TlsClientConfig& client_config() const { return client_config_; }
    bool verifies_clients() const { return !config_.client_ca_file.empty(); }

  private:
    TlsContext() = default;
    static int select_alpn(SSL* ssl, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
                           unsigned int inlen, void* arg);

    SSL_CTX* ctx_ = nullptr;
    TlsConfig config_;
    bool client_ = false;
    TlsClientConfig client_config_;
    std::string alpn_wire_;  // length-prefixed protocol names
};

}  // namespace slipstream::net::tls
