// TlsStream: one server-side TLS connection over a non-blocking socket: handshake, read, write, close_notify.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "base/result.h"
#include "net/tls/tls_context.h"

typedef struct ssl_st SSL;

namespace slipstream::net::tls {

/// Non-blocking: every call does what the socket allows now and reports what it waits for. The fd is not
/// owned (the connection closes it after the stream is destroyed). Loop thread only.
class TlsStream {
  public:
    enum class Progress : unsigned char { kDone, kWantRead, kWantWrite };

    /// A stream in the server role on `fd`, using `context` (kept alive by the stream). Error: kInternal
    /// when OpenSSL cannot allocate.
    static base::Result<std::unique_ptr<TlsStream>> accept(std::shared_ptr<const TlsContext> context, int fd);
    /// A stream in the client role on `fd` (connected), using a client `context` (TlsContext::create_client).
    /// `host` is the name (or IP literal) the caller connected to: sent as SNI when it is a name, and, when the
    /// context verifies, checked against the certificate (X509_VERIFY_PARAM_set1_host / set1_ip_asc; no partial
    /// wildcards). Errors: kInvalidArgument for a server context or an empty host; kInternal when OpenSSL cannot
    /// allocate. The handshake (handshake()) fails with kInvalidArgument naming the verification error.
    static base::Result<std::unique_ptr<TlsStream>> connect(std::shared_ptr<const TlsContext> context, int fd,
                                                            std::string_view host);
    ~TlsStream();
    TlsStream(const TlsStream&) = delete;
    TlsStream& operator=(const TlsStream&) = delete;

    /// Advances the handshake. Error: kInvalidArgument with OpenSSL's reason (bad client hello, no shared
    /// cipher, client certificate refused, ...) or kIoError (the socket broke).
    base::Result<Progress> handshake();
    bool handshake_done() const { return done_; }

    /// Decrypts into `buffer` until it is full or the socket has no more. Same outcomes as
    /// net::read_some: n > 0 bytes; 0 at the end of the stream (close_notify or a TCP close);
    /// kUnavailable when nothing is ready (see read_wants_write()); kIoError/kInvalidArgument when broken.
    base::Result<std::size_t> read(std::span<char> buffer);
    /// Encrypts and sends as much of `data` as the socket takes (whole records). n > 0; kUnavailable when
    /// nothing could be sent; kIoError when broken. After kUnavailable, the next call must pass at least
    /// the same bytes again (the output queue does: it keeps them until they are written).
    base::Result<std::size_t> write(std::string_view data);
    /// Decrypted bytes (or a whole record) already buffered inside OpenSSL: readable without the socket
    /// becoming readable, so the caller must read again before waiting for EPOLLIN.
    bool has_buffered_input() const;
    /// Frees OpenSSL's read and write buffers (about 34 KiB) unless they hold data; the next read or write
    /// allocates them again. For connections that went idle (see TlsContext: buffers are otherwise kept).
    void release_buffers();
    /// The last read stopped because OpenSSL must write first (wait for EPOLLOUT, then read again).
    bool read_wants_write() const { return read_wants_write_; }
    /// Sends close_notify once, best effort (never blocks, result ignored).
    void close_notify();

    /// The ALPN protocol agreed ("h2", "http/1.1"), or empty.
    std::string_view alpn() const;
    /// "TLSv1.3", "TLSv1.2".
    std::string_view version() const;
    bool session_reused() const;
    /// True when the peer presented a certificate that verified (the client's under mTLS; the server's on a
    /// verifying client stream).
    bool peer_verified() const;

  private:
    TlsStream(std::shared_ptr<const TlsContext> context, SSL* ssl) : context_(std::move(context)), ssl_(ssl) {}
    base::Status error_status(int ret, std::string_view what);

    std::shared_ptr<const TlsContext> context_;
    SSL* ssl_;
    bool done_ = false;
    bool read_wants_write_ = false;
    bool shut_ = false;
    bool client_ = false;
};

}  // namespace slipstream::net::tls
