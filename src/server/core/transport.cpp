// Transport: plain and TLS reads, writes and shutdown.
#include "server/core/transport.h"

#include <algorithm>
#include <cstring>

#include "net/socket.h"

namespace slipstream::server {

base::Status Transport::register_with(net::EventLoop& loop, std::uint32_t events, net::IoHandler* handler) {
    if (tls_ || !loop.uses_io_uring()) return loop.add(fd_, events, handler);
    base::Result<net::StreamIo*> stream = loop.add_stream(fd_, events, handler);
    if (!stream.is_ok()) return stream.status();
    stream_ = *stream;
    return base::Status::ok();
}

void Transport::unregister(net::EventLoop& loop) {
    loop.remove(fd_).ignore_error();
    stream_ = nullptr;
}

base::Result<std::size_t> Transport::read_tls(std::span<char> buffer) {
    tls_active_ = true;
    return tls_->read(buffer);
}

base::Result<std::size_t> Transport::read_raw(std::span<char> buffer) {
    return stream_ != nullptr ? stream_->read(buffer) : net::read_some(fd_, buffer);
}

base::Result<std::size_t> Transport::flush_tls(OutputQueue& out, std::span<char> scratch) {
    tls_active_ = true;
    TlsWrite w{tls_.get(), scratch};
    return out.flush_to(&Transport::write_tls, &w, scratch);  // file pieces are read into scratch, sent alone
}

// One SSL_write per call. A large first piece goes as it is; small pieces (pipelined responses, HTTP/2
// frames) are gathered into one record. Retries after kUnavailable see the same queue front, so they pass
// the same bytes again (OpenSSL requires it), possibly followed by more.
base::Result<std::size_t> Transport::write_tls(void* context, std::span<const iovec> pieces) {
    auto& w = *static_cast<TlsWrite*>(context);
    const iovec& first = pieces[0];
    if (pieces.size() == 1 || first.iov_len >= w.scratch.size()) {
        return w.tls->write({static_cast<const char*>(first.iov_base), first.iov_len});
    }
    std::size_t n = 0;
    for (const iovec& p : pieces) {
        std::size_t take = std::min(p.iov_len, w.scratch.size() - n);
        std::memcpy(w.scratch.data() + n, p.iov_base, take);
        n += take;
        if (n == w.scratch.size()) break;
    }
    return w.tls->write({w.scratch.data(), n});
}

base::Result<std::size_t> Transport::write_stream(void* context, std::span<const iovec> pieces) {
    return static_cast<net::StreamIo*>(context)->write(pieces);
}

base::Status Transport::shutdown_write() {
    close_notify();
    if (stream_ != nullptr) return stream_->shutdown_write();  // after the output the ring still holds
    return net::shutdown_write(fd_);
}

void Transport::close_notify() {
    if (tls_) tls_->close_notify();
}

}  // namespace slipstream::server
