// TlsContext: SSL_CTX set-up with modern defaults, certificate loading, mTLS and ALPN selection.
#include "net/tls/tls_context.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "net/tls/tls_error.h"

namespace slipstream::net::tls {
namespace {

// TLS 1.2 suites: forward secrecy and AEAD only. TLS 1.3 keeps OpenSSL's defaults (all AEAD).
constexpr const char* kCiphers12 =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
    "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";
// TLS 1.3 suites in the same order as the 1.2 list (AES-128-GCM first: as strong in practice, and cheaper).
constexpr const char* kCiphers13 = "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256";
constexpr const char* kGroups = "X25519:P-256:P-384";
constexpr unsigned char kSessionIdContext[] = "slipstream";
constexpr long kTicketKeysSize = 80;  // name (16) + HMAC secret (32) + AES key (32)

base::Status fail(const std::string& what) {
    return base::Status::invalid_argument(take_openssl_errors(what));
}

base::Status load_credentials(SSL_CTX* ctx, const TlsConfig& c) {
    if (c.cert_file.empty() || c.key_file.empty())
        return base::Status::invalid_argument("tls: both a certificate file and a key file are required");
    if (SSL_CTX_use_certificate_chain_file(ctx, c.cert_file.c_str()) != 1)
        return fail("tls: cannot load certificate file " + c.cert_file);
    if (SSL_CTX_use_PrivateKey_file(ctx, c.key_file.c_str(), SSL_FILETYPE_PEM) != 1)
        return fail("tls: cannot load key file " + c.key_file);
    if (SSL_CTX_check_private_key(ctx) != 1)
        return fail("tls: key file " + c.key_file + " does not match certificate " + c.cert_file);
    if (c.client_ca_file.empty()) return base::Status::ok();
    if (SSL_CTX_load_verify_locations(ctx, c.client_ca_file.c_str(), nullptr) != 1)
        return fail("tls: cannot load client CA file " + c.client_ca_file);
    STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(c.client_ca_file.c_str());
    if (names == nullptr) return fail("tls: no CA names in client CA file " + c.client_ca_file);
    SSL_CTX_set_client_CA_list(ctx, names);  // takes ownership
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
    SSL_CTX_set_verify_depth(ctx, 8);
    return base::Status::ok();
}

void set_defaults(SSL_CTX* ctx, const TlsConfig& c) {
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE |
                                 SSL_OP_IGNORE_UNEXPECTED_EOF);
    // Partial writes let the output queue advance per record. SSL_MODE_RELEASE_BUFFERS is not set: it frees
    // and allocates both record buffers around every request (~1,500 instructions, a fifth of OpenSSL's part
    // of a small request); the server frees the buffers of connections idle for a second instead
    // (TlsStream::release_buffers, Worker's trim timer).
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    // Read ahead: one receive takes every record the socket holds, instead of a 5-byte header read and a
    // body read per record (TlsStream::read then stops when nothing is left buffered).
    SSL_CTX_set_read_ahead(ctx, 1);
    SSL_CTX_set_session_id_context(ctx, kSessionIdContext, sizeof kSessionIdContext - 1);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
    SSL_CTX_sess_set_cache_size(ctx, static_cast<long>(c.session_cache_size));
    SSL_CTX_set_timeout(ctx, static_cast<long>(c.session_lifetime_s));
    SSL_CTX_set_num_tickets(ctx, 1);
}

}  // namespace

base::Result<std::shared_ptr<const TlsContext>> TlsContext::create(const TlsConfig& config,
                                                                   const TlsContext* previous) {
    ERR_clear_error();
    std::shared_ptr<TlsContext> t(new TlsContext());
    t->config_ = config;
    t->ctx_ = SSL_CTX_new(TLS_server_method());
    if (t->ctx_ == nullptr) return fail("tls: SSL_CTX_new");
    set_defaults(t->ctx_, config);
    if (SSL_CTX_set_cipher_list(t->ctx_, kCiphers12) != 1) return fail("tls: cipher list");
    if (SSL_CTX_set_ciphersuites(t->ctx_, kCiphers13) != 1) return fail("tls: TLS 1.3 cipher suites");
    if (SSL_CTX_set1_groups_list(t->ctx_, kGroups) != 1) return fail("tls: groups");
    SLIPSTREAM_RETURN_IF_ERROR(load_credentials(t->ctx_, config));
    if (previous != nullptr) {
        unsigned char keys[kTicketKeysSize];
        if (SSL_CTX_get_tlsext_ticket_keys(previous->ctx_, keys, sizeof keys) == 1)
            SSL_CTX_set_tlsext_ticket_keys(t->ctx_, keys, sizeof keys);
        OPENSSL_cleanse(keys, sizeof keys);
    }
    for (const std::string& p : config.alpn) {
        if (p.empty() || p.size() > 255) return base::Status::invalid_argument("tls: bad ALPN protocol name");
        t->alpn_wire_.push_back(static_cast<char>(p.size()));
        t->alpn_wire_.append(p);
    }
    if (!t->alpn_wire_.empty()) SSL_CTX_set_alpn_select_cb(t->ctx_, &TlsContext::select_alpn, t.get());
    ERR_clear_error();
    return std::shared_ptr<const TlsContext>(std::move(t));
}

base::Result<std::shared_ptr<const TlsContext>> TlsContext::create_client(const TlsClientConfig& config) {
    ERR_clear_error();
    std::shared_ptr<TlsContext> t(new TlsContext());
    t->client_ = true;
    t->client_config_ = config;
    t->ctx_ = SSL_CTX_new(TLS_client_method());
    if (t->ctx_ == nullptr) return fail("tls: SSL_CTX_new");
    SSL_CTX* ctx = t->ctx_;
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_read_ahead(ctx, 1);
    if (SSL_CTX_set_cipher_list(ctx, kCiphers12) != 1) return fail("tls: cipher list");
    if (SSL_CTX_set_ciphersuites(ctx, kCiphers13) != 1) return fail("tls: TLS 1.3 cipher suites");
    if (SSL_CTX_set1_groups_list(ctx, kGroups) != 1) return fail("tls: groups");
    if (config.verify) {
        if (!config.ca_file.empty()) {
            if (SSL_CTX_load_verify_locations(ctx, config.ca_file.c_str(), nullptr) != 1)
                return fail("tls: cannot load CA file " + config.ca_file);
        } else if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
            return fail("tls: cannot load the system CA store");
        }
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
        SSL_CTX_set_verify_depth(ctx, 10);
    } else {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
    }
    if (config.cert_file.empty() != config.key_file.empty())
        return base::Status::invalid_argument("tls: a client certificate needs both a certificate and a key file");
    if (!config.cert_file.empty()) {
        if (SSL_CTX_use_certificate_chain_file(ctx, config.cert_file.c_str()) != 1)
            return fail("tls: cannot load certificate file " + config.cert_file);
        if (SSL_CTX_use_PrivateKey_file(ctx, config.key_file.c_str(), SSL_FILETYPE_PEM) != 1)
            return fail("tls: cannot load key file " + config.key_file);
        if (SSL_CTX_check_private_key(ctx) != 1)
            return fail("tls: key file " + config.key_file + " does not match certificate " + config.cert_file);
    }
    for (const std::string& p : config.alpn) {
        if (p.empty() || p.size() > 255) return base::Status::invalid_argument("tls: bad ALPN protocol name");
        t->alpn_wire_.push_back(static_cast<char>(p.size()));
        t->alpn_wire_.append(p);
    }
    // Note: SSL_CTX_set_alpn_protos returns 0 on success.
    if (!t->alpn_wire_.empty() &&
        SSL_CTX_set_alpn_protos(ctx, reinterpret_cast<const unsigned char*>(t->alpn_wire_.data()),
                                static_cast<unsigned>(t->alpn_wire_.size())) != 0)
        return fail("tls: ALPN list");
    ERR_clear_error();
    return std::shared_ptr<const TlsContext>(std::move(t));
}

TlsContext::~TlsContext() {
    if (ctx_ != nullptr) SSL_CTX_free(ctx_);
}

int TlsContext::select_alpn(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
                            unsigned int inlen, void* arg) {
    const auto* self = static_cast<const TlsContext*>(arg);
    unsigned char* selected = nullptr;
    const auto* server = reinterpret_cast<const unsigned char*>(self->alpn_wire_.data());
    // The first protocol of the server's list that the client offers.
    if (SSL_select_next_proto(&selected, outlen, server, static_cast<unsigned>(self->alpn_wire_.size()), in, inlen) !=
        OPENSSL_NPN_NEGOTIATED) {
        return SSL_TLSEXT_ERR_NOACK;  // no overlap: carry on without ALPN (HTTP/1.1)
    }
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
}

}  // namespace slipstream::net::tls
