// Server::serve_stdio(): newline-delimited JSON-RPC on two descriptors, one session, one write per message.
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <mutex>
#include <string>

#include "agent/mcp/server_core.h"
#include "slipstream/mcp.h"

namespace slipstream::mcp {

namespace {

// Writes whole lines under a lock, so messages from several threads never interleave.
class LineWriter {
  public:
    explicit LineWriter(int fd) : fd_(fd) {}

    void write(std::string message) {
        // JSON holds raw CR/LF only as whitespace between tokens (inside strings they are escaped), so blanking
        // them keeps the message intact and on one line.
        for (char& c : message)
            if (c == '\n' || c == '\r') c = ' ';
        message.push_back('\n');
        std::lock_guard lock(mu_);
        std::size_t done = 0;
        while (done < message.size()) {
            const ssize_t n = ::write(fd_, message.data() + done, message.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return;  // the reader went away; nothing to tell
            done += static_cast<std::size_t>(n);
        }
    }

  private:
    const int fd_;
    std::mutex mu_;
};

}  // namespace

int Server::serve_stdio(int in_fd, int out_fd) {
    detail::ServerCore& core = *core_;
    const int wake = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (wake < 0) return 1;
    core.stdio_wake_fd.store(wake);
    auto writer = std::make_shared<LineWriter>(out_fd);
    auto session = std::make_shared<detail::Session>("", "");
    session->set_sink([writer](std::string m) { writer->write(std::move(m)); });
    core.attach(session);
    auto channel = std::make_shared<detail::FunctionChannel>([writer](std::string m) { writer->write(std::move(m)); });

    const std::size_t max_line = core.config().max_message_bytes;
    std::string pending;
    bool skipping = false;  // inside a line longer than max_message_bytes: dropped up to its newline
    char buf[65536];
    int rc = 0;
    while (!core.stopping.load()) {
        pollfd fds[2] = {{in_fd, POLLIN, 0}, {wake, POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            rc = 1;
            break;
        }
        if (fds[1].revents != 0) break;
        const ssize_t n = ::read(in_fd, buf, sizeof buf);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n <= 0) {
            rc = n < 0 ? 1 : 0;
            break;
        }
        std::string_view chunk(buf, static_cast<std::size_t>(n));
        while (!chunk.empty()) {
            const std::size_t nl = chunk.find('\n');
            const std::string_view part = chunk.substr(0, nl);
            if (!skipping) pending.append(part);
            if (pending.size() > max_line) {
                if (!skipping)
                    channel->answer(
                        detail::error_message("null", detail::kInvalidRequest, "Invalid Request: message too large"));
                skipping = true;
                pending.clear();
            }
            if (nl == std::string_view::npos) break;
            chunk.remove_prefix(nl + 1);
            if (!skipping && pending.find_first_not_of(" \t\r") != std::string::npos)
                core.handle_text(session, pending, channel);
            pending.clear();
            skipping = false;
        }
    }
    core.stdio_wake_fd.store(-1);
    core.end_session(session);
    session->set_sink(nullptr);
    ::close(wake);
    return rc;
}

}  // namespace slipstream::mcp
