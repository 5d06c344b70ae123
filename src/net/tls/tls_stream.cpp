// TlsStream: SSL_accept / SSL_read_ex / SSL_write_ex over a non-blocking socket with OpenSSL's socket BIO.
#include "net/tls/tls_stream.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <cerrno>
#include <cstring>

#include "net/tls/tls_error.h"

namespace slipstream::net::tls {
namespace {

// SSL_get_error reads the thread's error queue, so it must hold nothing from earlier calls. Clearing walks
// every slot of the queue (~500 instructions in OpenSSL 3); looking at it first costs a tenth of that, and
// on the data path the queue is almost always empty.
void clear_errors() {
    if (ERR_peek_error() != 0) ERR_clear_error();
}

}  // namespace

base::Result<std::unique_ptr<TlsStream>> TlsStream::accept(std::shared_ptr<const TlsContext> context, int fd) {
    ERR_clear_error();
    SSL* ssl = SSL_new(context->native());
    if (ssl == nullptr) return base::Status::internal(take_openssl_errors("tls: SSL_new"));
    if (SSL_set_fd(ssl, fd) != 1) {
        SSL_free(ssl);
        return base::Status::internal(take_openssl_errors("tls: SSL_set_fd"));
    }
    SSL_set_accept_state(ssl);
    return std::unique_ptr<TlsStream>(new TlsStream(std::move(context), ssl));
}

base::Result<std::unique_ptr<TlsStream>> TlsStream::connect(std::shared_ptr<const TlsContext> context, int fd,
                                                            std::string_view host) {
    if (!context->is_client()) return base::Status::invalid_argument("tls: connect needs a client context");
    if (host.empty()) return base::Status::invalid_argument("tls: connect needs the server's host name");
    ERR_clear_error();
    SSL* ssl = SSL_new(context->native());
    if (ssl == nullptr) return base::Status::internal(take_openssl_errors("tls: SSL_new"));
    std::unique_ptr<TlsStream> stream(new TlsStream(std::move(context), ssl));
    if (SSL_set_fd(ssl, fd) != 1) return base::Status::internal(take_openssl_errors("tls: SSL_set_fd"));
    std::string name(host);
    if (name.size() > 2 && name.front() == '[' && name.back() == ']') name = name.substr(1, name.size() - 2);
    unsigned char addr[16];
    const bool ip = inet_pton(AF_INET, name.c_str(), addr) == 1 || inet_pton(AF_INET6, name.c_str(), addr) == 1;
    // SNI carries names only (RFC 6066 §3: literal addresses are not permitted).
    if (!ip && SSL_set_tlsext_host_name(ssl, name.c_str()) != 1)
        return base::Status::invalid_argument(take_openssl_errors("tls: server name " + name));
    if (stream->context_->client_config().verify) {
        X509_VERIFY_PARAM* param = SSL_get0_param(ssl);
        X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
        int ok = ip ? X509_VERIFY_PARAM_set1_ip_asc(param, name.c_str())
                    : X509_VERIFY_PARAM_set1_host(param, name.c_str(), name.size());
        if (ok != 1) return base::Status::invalid_argument(take_openssl_errors("tls: server name " + name));
    }
    SSL_set_connect_state(ssl);
    stream->client_ = true;
    return stream;
}

TlsStream::~TlsStream() {
    SSL_free(ssl_);
}

base::Status TlsStream::error_status(int ret, std::string_view what) {
    int err = SSL_get_error(ssl_, ret);
    if (err == SSL_ERROR_SYSCALL) {
        int e = errno;
        if (ERR_peek_error() == 0) {
            ERR_clear_error();
            return e == 0 ? base::Status::io_error(std::string(what) + ": connection closed")
                          : base::Status::from_errno(what, e);
        }
    }
    return base::Status::invalid_argument(take_openssl_errors(what));
}

base::Result<TlsStream::Progress> TlsStream::handshake() {
    if (done_) return Progress::kDone;
    ERR_clear_error();
    int r = SSL_do_handshake(ssl_);
    if (r == 1) {
        done_ = true;
        return Progress::kDone;
    }
    switch (SSL_get_error(ssl_, r)) {
        case SSL_ERROR_WANT_READ:
            return Progress::kWantRead;
        case SSL_ERROR_WANT_WRITE:
            return Progress::kWantWrite;
        default:
            break;
    }
    if (client_) {
        long verify = SSL_get_verify_result(ssl_);
        if (verify != X509_V_OK) {
            ERR_clear_error();
            return base::Status::invalid_argument(std::string("tls handshake: server certificate not accepted: ") +
                                                  X509_verify_cert_error_string(verify));
        }
    }
    return error_status(r, "tls handshake");
}

base::Result<std::size_t> TlsStream::read(std::span<char> buffer) {
    read_wants_write_ = false;
    std::size_t total = 0;
    while (total < buffer.size()) {
        clear_errors();
        std::size_t n = 0;
        int r = SSL_read_ex(ssl_, buffer.data() + total, buffer.size() - total, &n);
        if (r == 1) {
            total += n;
            // Nothing left in OpenSSL's buffer (read ahead, tls_context.cpp): stop rather than pay a receive
            // that would only say EAGAIN; the socket signals readiness again for anything still in flight.
            if (SSL_has_pending(ssl_) != 1) break;
            continue;
        }
        int err = SSL_get_error(ssl_, r);
        if (total > 0 && err != SSL_ERROR_SSL) return total;  // report the bytes; the condition repeats
        switch (err) {
            case SSL_ERROR_WANT_READ:
                return base::Status::unavailable("");
            case SSL_ERROR_WANT_WRITE:
                read_wants_write_ = true;
                return base::Status::unavailable("");
            case SSL_ERROR_ZERO_RETURN:
                return std::size_t{0};
            default:
                return error_status(r, "tls read");
        }
    }
    return total;
}

base::Result<std::size_t> TlsStream::write(std::string_view data) {
    if (data.empty()) return std::size_t{0};
    clear_errors();
    std::size_t n = 0;
    int r = SSL_write_ex(ssl_, data.data(), data.size(), &n);
    if (r == 1) return n;
    switch (SSL_get_error(ssl_, r)) {
        case SSL_ERROR_WANT_READ:
        case SSL_ERROR_WANT_WRITE:
            return base::Status::unavailable("");
        default:
            return error_status(r, "tls write");
    }
}

void TlsStream::release_buffers() {
    (void)SSL_free_buffers(ssl_);  // 0 when data is pending: the buffers stay, as they should
}

bool TlsStream::has_buffered_input() const {
    return SSL_has_pending(ssl_) == 1;
}

void TlsStream::close_notify() {
    if (shut_ || !done_) return;
    shut_ = true;
    ERR_clear_error();
    (void)SSL_shutdown(ssl_);
    ERR_clear_error();
}

std::string_view TlsStream::alpn() const {
    const unsigned char* p = nullptr;
    unsigned int len = 0;
    SSL_get0_alpn_selected(ssl_, &p, &len);
    return p == nullptr ? std::string_view() : std::string_view(reinterpret_cast<const char*>(p), len);
}

std::string_view TlsStream::version() const {
    return SSL_get_version(ssl_);
}

bool TlsStream::session_reused() const {
    return SSL_session_reused(ssl_) == 1;
}

bool TlsStream::peer_verified() const {
    X509* cert = SSL_get0_peer_certificate(ssl_);
    return cert != nullptr && SSL_get_verify_result(ssl_) == X509_V_OK;
}

}  // namespace slipstream::net::tls
