// Tests for SocketAddress formatting/parsing, Fd, and the read/write wrappers' outcomes.
#include "net/socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "net/fd.h"
#include "net/socket_address.h"

namespace slipstream::net {
namespace {

TEST(SocketAddress, FormatsHostAndPort) {
    struct Case {
        const char* host;
        std::uint16_t port;
        const char* formatted;
        const char* ip;
        int family;
    };
    const Case cases[] = {
        {"127.0.0.1", 8080, "127.0.0.1:8080", "127.0.0.1", AF_INET},
        {"0.0.0.0", 65535, "0.0.0.0:65535", "0.0.0.0", AF_INET},
        {"localhost", 1, "127.0.0.1:1", "127.0.0.1", AF_INET},
        {"::1", 8080, "[::1]:8080", "::1", AF_INET6},
        {"[::1]", 0, "[::1]:0", "::1", AF_INET6},
        {"::", 443, "[::]:443", "::", AF_INET6},
        {"2001:db8::17", 80, "[2001:db8::17]:80", "2001:db8::17", AF_INET6},
    };
    for (const Case& c : cases) {
        base::Result<SocketAddress> a = SocketAddress::from_host_port(c.host, c.port);
        ASSERT_TRUE(a.is_ok()) << c.host;
        EXPECT_EQ(a->to_string(), c.formatted) << c.host;
        EXPECT_EQ(a->ip(), c.ip) << c.host;
        EXPECT_EQ(a->port(), c.port) << c.host;
        EXPECT_EQ(a->family(), c.family) << c.host;
    }
}

TEST(SocketAddress, RejectsNonNumericHosts) {
    for (const char* host : {"", "example.com", "1.2.3", "256.1.1.1", "[::1", "::1]", "127.0.0.1 "}) {
        base::Result<SocketAddress> a = SocketAddress::from_host_port(host, 80);
        ASSERT_FALSE(a.is_ok()) << host;
        EXPECT_TRUE(a.status().is_invalid_argument()) << host;
    }
}

TEST(SocketAddress, MappedIpv4BecomesIpv4AndOthersFormat) {
    sockaddr_in6 v6{};
    v6.sin6_family = AF_INET6;
    v6.sin6_port = htons(443);
    ASSERT_EQ(::inet_pton(AF_INET6, "::ffff:10.0.0.1", &v6.sin6_addr), 1);
    SocketAddress mapped = SocketAddress::from_sockaddr(reinterpret_cast<sockaddr*>(&v6), sizeof v6);
    EXPECT_TRUE(mapped.is_ipv4());
    EXPECT_EQ(mapped.to_string(), "10.0.0.1:443");

    EXPECT_EQ(SocketAddress::unix_domain().to_string(), "unix");
    EXPECT_TRUE(SocketAddress::unix_domain().is_unix());
    EXPECT_EQ(SocketAddress().to_string(), "");
    EXPECT_EQ(SocketAddress().port(), 0);

    sockaddr_in truncated{};
    truncated.sin_family = AF_INET;
    EXPECT_EQ(SocketAddress::from_sockaddr(reinterpret_cast<sockaddr*>(&truncated), 4).family(), AF_UNSPEC);
}

TEST(SocketAddress, FormatTruncatesWithoutAllocating) {
    SocketAddress a = *SocketAddress::from_host_port("127.0.0.1", 8080);
    char buf[5];
    EXPECT_EQ(a.format(buf, sizeof buf), 4u);
    EXPECT_STREQ(buf, "127.");
    char full[SocketAddress::kMaxFormatted];
    EXPECT_EQ(a.format(full, sizeof full), 14u);
    EXPECT_STREQ(full, "127.0.0.1:8080");
    EXPECT_EQ(a.format(nullptr, 0), 0u);
}

TEST(Fd, ClosesOnResetAndDestructionNotOnRelease) {
    int raw = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    ASSERT_GE(raw, 0);
    {
        Fd fd(raw);
        Fd moved(std::move(fd));
        EXPECT_FALSE(fd.valid());  // NOLINT: testing moved-from state
        EXPECT_EQ(moved.get(), raw);
    }
    EXPECT_EQ(::fcntl(raw, F_GETFD), -1);
    EXPECT_EQ(errno, EBADF);

    raw = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    {
        Fd fd(raw);
        EXPECT_EQ(fd.release(), raw);
    }
    EXPECT_GE(::fcntl(raw, F_GETFD), 0);
    Fd again(raw);
    again.reset();
    EXPECT_EQ(::fcntl(raw, F_GETFD), -1);
}

class SocketIo : public ::testing::Test {
  protected:
    void SetUp() override {
        int fds[2];
        ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds), 0);
        a_.reset(fds[0]);
        b_.reset(fds[1]);
    }
    Fd a_;
    Fd b_;
};

TEST_F(SocketIo, UnsentBytesAreNonZeroUntilThePeerHasReadEverything) {
    EXPECT_EQ(unsent_bytes(a_.get()), 0u);
    ASSERT_TRUE(write_some(a_.get(), "hello world").is_ok());
    EXPECT_GT(unsent_bytes(a_.get()), 0u);
    char buf[16];
    base::Result<std::size_t> r = read_some(b_.get(), std::span<char>(buf, 5));
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(*r, 5u);
    EXPECT_GT(unsent_bytes(a_.get()), 0u);  // six bytes still unread
    r = read_some(b_.get(), buf);
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(*r, 6u);
    EXPECT_EQ(unsent_bytes(a_.get()), 0u);
    EXPECT_EQ(unsent_bytes(-1), 0u);  // an error reads as nothing pending
}

TEST_F(SocketIo, ReadOutcomes) {
    char buf[16];
    base::Result<std::size_t> r = read_some(a_.get(), buf);
    EXPECT_TRUE(would_block(r));
    EXPECT_TRUE(r.status().message().empty());

    ASSERT_TRUE(write_some(b_.get(), "hello").is_ok());
    r = read_some(a_.get(), buf);
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(std::string(buf, *r), "hello");

    ASSERT_TRUE(shutdown_write(b_.get()).is_ok());
    r = read_some(a_.get(), buf);
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(*r, 0u);  // EOF
    EXPECT_FALSE(would_block(r));
}

TEST_F(SocketIo, WritevGathersInOrder) {
    std::string one = "GET / HTTP/1.1\r\n", two = "Host: x\r\n", three = "\r\n";
    const iovec iov[] = {{one.data(), one.size()}, {two.data(), two.size()}, {three.data(), three.size()}};
    base::Result<std::size_t> w = writev_some(a_.get(), iov);
    ASSERT_TRUE(w.is_ok());
    EXPECT_EQ(*w, one.size() + two.size() + three.size());
    char buf[64];
    base::Result<std::size_t> r = read_some(b_.get(), buf);
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(std::string(buf, *r), one + two + three);
    EXPECT_EQ(*writev_some(a_.get(), {}), 0u);
}

TEST_F(SocketIo, FullSendBufferWouldBlock) {
    const std::string chunk(64 * 1024, 'x');
    base::Result<std::size_t> w = write_some(a_.get(), chunk);
    int writes = 0;
    while (w.is_ok() && writes < 10'000) {
        w = write_some(a_.get(), chunk);
        ++writes;
    }
    EXPECT_TRUE(would_block(w)) << w.status().to_string();
    const iovec iov[] = {{const_cast<char*>(chunk.data()), chunk.size()}};
    EXPECT_TRUE(would_block(writev_some(a_.get(), iov)));
}

TEST_F(SocketIo, WriteToClosedPeerIsAnErrorNotSigpipe) {
    // With SIGPIPE at its default action this process would die if MSG_NOSIGNAL were missing.
    struct sigaction old {};
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    ASSERT_EQ(::sigaction(SIGPIPE, &dfl, &old), 0);
    b_.reset();
    base::Result<std::size_t> w = write_some(a_.get(), "data");
    ASSERT_FALSE(w.is_ok());
    EXPECT_TRUE(w.status().is_io_error());
    EXPECT_EQ(w.status().message(), "write: Broken pipe");
    const iovec iov[] = {{const_cast<char*>("data"), 4}};
    base::Result<std::size_t> wv = writev_some(a_.get(), iov);
    ASSERT_FALSE(wv.is_ok());
    EXPECT_EQ(wv.status().message(), "writev: Broken pipe");
    ::sigaction(SIGPIPE, &old, nullptr);
}

TEST_F(SocketIo, OptionsAndAddresses) {
    EXPECT_EQ(socket_error(a_.get()), 0);
    ASSERT_TRUE(set_nonblocking(a_.get(), false).is_ok());
    EXPECT_EQ(::fcntl(a_.get(), F_GETFL) & O_NONBLOCK, 0);
    ASSERT_TRUE(set_nonblocking(a_.get(), true).is_ok());
    EXPECT_NE(::fcntl(a_.get(), F_GETFL) & O_NONBLOCK, 0);
    EXPECT_TRUE(set_tcp_nodelay(a_.get(), true).is_io_error());  // not a TCP socket
    base::Result<SocketAddress> local = local_address(a_.get());
    ASSERT_TRUE(local.is_ok());
    EXPECT_TRUE(local->is_unix());
    EXPECT_TRUE(local_address(-1).status().is_io_error());
    EXPECT_TRUE(set_nonblocking(-1, true).is_io_error());
}

TEST(ConnectUnix, RejectsBadPathsAndMissingServers) {
    EXPECT_TRUE(connect_unix("").status().is_invalid_argument());
    EXPECT_TRUE(connect_unix(std::string(200, 'x')).status().is_invalid_argument());
    EXPECT_TRUE(connect_unix("/nonexistent-dir-for-slipstream/sock").status().is_io_error());
    EXPECT_TRUE(connect_tcp("not-an-ip", 80).status().is_invalid_argument());
}

}  // namespace
}  // namespace slipstream::net
