// TestServer (tests only): a scripted HTTP/1.1 server on 127.0.0.1, plain or TLS, one thread per connection, so a
// test says byte for byte what the client receives (good, broken, slow, cut).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace slipstream::store::http::testing {

/// One accepted connection, used from its handler's thread (blocking I/O).
class ServerConn {
  public:
    ServerConn(int fd, SSL* ssl) : fd_(fd), ssl_(ssl) {}

    /// Reads one request (head and Content-Length body); empty on EOF or error. `wait_ms` bounds the wait.
    std::string read_request(int wait_ms = 10'000) {
        for (;;) {
            std::size_t end = buf_.find("\r\n\r\n");
            if (end != std::string::npos) {
                std::size_t len = 0;
                std::size_t cl = lower(buf_.substr(0, end)).find("\r\ncontent-length:");
                if (cl != std::string::npos) len = std::stoul(buf_.substr(cl + 17, end - cl - 17));
                if (buf_.size() >= end + 4 + len) {
                    std::string req = buf_.substr(0, end + 4 + len);
                    buf_.erase(0, end + 4 + len);
                    return req;
                }
            }
            if (!fill(wait_ms)) return {};
        }
    }
    /// True when the client closed the connection (EOF or reset) within `wait_ms`.
    bool wait_closed(int wait_ms) {
        auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
        while (std::chrono::steady_clock::now() < until) {
            if (!fill(50)) {
                if (closed_) return true;
            }
        }
        return false;
    }
    bool write(std::string_view data) {
        while (!data.empty()) {
            long n = ssl_ != nullptr ? SSL_write(ssl_, data.data(), static_cast<int>(data.size()))
                                     : ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
            if (n <= 0) return false;
            data.remove_prefix(static_cast<std::size_t>(n));
        }
        return true;
    }
    void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }
    /// Closes at once (the handler returns afterwards).
    void close() {
        if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
    }
    /// A reset instead of a FIN (SO_LINGER 0).
    void reset() {
        linger l{1, 0};
        ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &l, sizeof l);
        ::close(fd_);
        fd_ = -1;
    }
    int fd() const { return fd_; }
    /// Appends what arrives within `wait_ms` (what read_request() buffered first); false on EOF or error.
    bool read_some(std::string& out, int wait_ms) {
        if (buf_.empty() && !fill(wait_ms)) return !closed_;
        out.append(buf_);
        buf_.clear();
        return true;
    }

  private:
    static std::string lower(std::string s) {
        for (char& c : s)
            c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        return s;
    }
    bool fill(int wait_ms) {
        if (fd_ < 0 || closed_) return false;
        if (ssl_ == nullptr || SSL_pending(ssl_) == 0) {
            pollfd p{fd_, POLLIN, 0};
            if (::poll(&p, 1, wait_ms) <= 0) return false;
        }
        char tmp[16384];
        long n = ssl_ != nullptr ? SSL_read(ssl_, tmp, sizeof tmp) : ::recv(fd_, tmp, sizeof tmp, 0);
        if (n <= 0) {
            closed_ = true;
            return false;
        }
        buf_.append(tmp, static_cast<std::size_t>(n));
        return true;
    }

    int fd_;
    SSL* ssl_;
    std::string buf_;
    bool closed_ = false;
};

/// Listens on 127.0.0.1:0; each accepted connection runs `handler` on a thread of its own. Counts connections and
/// tracks how many are open at once.
class TestServer {
  public:
    using Handler = std::function<void(ServerConn&)>;

    /// `tls_cert`/`tls_key` non-empty: TLS (blocking SSL_accept) with that certificate; `alpn`: the protocols it
    /// chooses from by ALPN, in its order of preference (empty: no ALPN answer).
    explicit TestServer(Handler handler, std::string tls_cert = {}, std::string tls_key = {},
                        std::vector<std::string> alpn = {})
        : handler_(std::move(handler)), alpn_(std::move(alpn)) {
        fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int one = 1;
        ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 64) != 0)
            throw std::runtime_error("test server: bind/listen failed");
        socklen_t len = sizeof a;
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
        port_ = ntohs(a.sin_port);
        if (!tls_cert.empty()) {
            ctx_ = SSL_CTX_new(TLS_server_method());
            if (SSL_CTX_use_certificate_chain_file(ctx_, tls_cert.c_str()) != 1 ||
                SSL_CTX_use_PrivateKey_file(ctx_, tls_key.c_str(), SSL_FILETYPE_PEM) != 1)
                throw std::runtime_error("test server: bad certificate");
            if (!alpn_.empty()) SSL_CTX_set_alpn_select_cb(ctx_, &TestServer::select_alpn, this);
        }
        acceptor_ = std::thread([this] { accept_loop(); });
    }
    ~TestServer() {
        stopping_ = true;
        ::shutdown(fd_, SHUT_RDWR);
        acceptor_.join();
        ::close(fd_);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            for (int fd : open_fds_)
                ::shutdown(fd, SHUT_RDWR);
        }
        for (auto& t : threads_)
            t.join();
        if (ctx_ != nullptr) SSL_CTX_free(ctx_);
    }
    std::uint16_t port() const { return port_; }
    std::string url(std::string_view path = "/") const {
        return std::string(ctx_ != nullptr ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_) +
               std::string(path);
    }
    int connections() const { return connections_.load(); }
    int max_concurrent() const { return max_concurrent_.load(); }
    int open() const { return open_.load(); }

    /// The protocol ALPN chose on each connection, in accept order ("" when none).
    std::vector<std::string> chosen() {
        std::lock_guard<std::mutex> lock(mutex_);
        return chosen_;
    }

  private:
    static int select_alpn(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
                           unsigned int inlen, void* arg) {
        auto* self = static_cast<TestServer*>(arg);
        for (const std::string& want : self->alpn_) {
            for (unsigned int i = 0; i < inlen;) {
                unsigned int n = in[i];
                if (i + 1 + n <= inlen && std::string_view(reinterpret_cast<const char*>(in + i + 1), n) == want) {
                    *out = in + i + 1;
                    *outlen = static_cast<unsigned char>(n);
                    return SSL_TLSEXT_ERR_OK;
                }
                i += 1 + n;
            }
        }
        return SSL_TLSEXT_ERR_NOACK;
    }

    void accept_loop() {
        for (;;) {
            int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
            if (c < 0) {
                if (stopping_) return;
                continue;
            }
            if (stopping_) {
                ::close(c);
                return;
            }
            int one = 1;
            ::setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            ++connections_;
            int now = ++open_;
            int prev = max_concurrent_.load();
            while (now > prev && !max_concurrent_.compare_exchange_weak(prev, now)) {
            }
            {
                std::lock_guard<std::mutex> lock(mutex_);
                open_fds_.push_back(c);
            }
            threads_.emplace_back([this, c] {
                SSL* ssl = nullptr;
                bool ok = true;
                if (ctx_ != nullptr) {
                    ssl = SSL_new(ctx_);
                    SSL_set_fd(ssl, c);
                    ok = SSL_accept(ssl) == 1;
                    const unsigned char* p = nullptr;
                    unsigned int n = 0;
                    if (ok) SSL_get0_alpn_selected(ssl, &p, &n);
                    std::lock_guard<std::mutex> lock(mutex_);
                    chosen_.push_back(p != nullptr ? std::string(reinterpret_cast<const char*>(p), n) : std::string());
                }
                ServerConn conn(c, ssl);
                if (ok) handler_(conn);
                if (ssl != nullptr) {
                    if (ok) SSL_shutdown(ssl);
                    SSL_free(ssl);
                }
                {
                    std::lock_guard<std::mutex> lock(mutex_);
                    std::erase(open_fds_, c);
                }
                --open_;
                if (conn.fd() >= 0) ::close(c);
            });
        }
    }

    Handler handler_;
    std::vector<std::string> alpn_;
    std::vector<std::string> chosen_;
    int fd_ = -1;
    std::uint16_t port_ = 0;
    SSL_CTX* ctx_ = nullptr;
    std::thread acceptor_;
    std::vector<std::thread> threads_;
    std::mutex mutex_;
    std::vector<int> open_fds_;
    std::atomic<bool> stopping_{false};
    std::atomic<int> connections_{0};
    std::atomic<int> open_{0};
    std::atomic<int> max_concurrent_{0};
};

}  // namespace slipstream::store::http::testing
