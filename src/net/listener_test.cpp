// Tests for listeners: TCP v4/v6 and Unix round trips, SO_REUSEPORT, stale sockets, EMFILE in a child.
#include "net/listener.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "net/event_loop.h"
#include "net/socket.h"

namespace slipstream::net {
namespace {

// Blocks until `fd` is readable: waiting on the event itself, not on time.
void wait_readable(int fd) {
    pollfd p{fd, POLLIN, 0};
    while (::poll(&p, 1, -1) < 0 && errno == EINTR) {
    }
}

std::string read_all_blocking(int fd, std::size_t n) {
    std::string out(n, '\0');
    std::size_t got = 0;
    while (got < n) {
        const ssize_t k = ::read(fd, out.data() + got, n - got);
        if (k <= 0) break;
        got += static_cast<std::size_t>(k);
    }
    out.resize(got);
    return out;
}

// Accepts one connection (waiting for it), checks addresses, and echoes "ping" -> "pong" both ways.
void round_trip(Listener& listener, Fd client, const std::string& expected_peer) {
    wait_readable(listener.fd());
    base::Result<Accepted> acc = listener.accept();
    ASSERT_TRUE(acc.is_ok()) << acc.status().to_string();
    EXPECT_EQ(acc->peer.to_string(), expected_peer);
    EXPECT_NE(::fcntl(acc->fd.get(), F_GETFL) & O_NONBLOCK, 0);
    EXPECT_NE(::fcntl(acc->fd.get(), F_GETFD) & FD_CLOEXEC, 0);

    char buf[16];
    EXPECT_TRUE(would_block(read_some(acc->fd.get(), buf)));
    ASSERT_EQ(::write(client.get(), "ping", 4), 4);
    wait_readable(acc->fd.get());
    base::Result<std::size_t> r = read_some(acc->fd.get(), buf);
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(std::string(buf, *r), "ping");
    ASSERT_TRUE(write_some(acc->fd.get(), "pong").is_ok());
    EXPECT_EQ(read_all_blocking(client.get(), 4), "pong");
    client.reset();
    wait_readable(acc->fd.get());
    r = read_some(acc->fd.get(), buf);
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(*r, 0u);
}

TEST(ListenTcp, RoundTripOverLoopbackAddresses) {
    struct Case {
        const char* host;
        const char* peer_ip_format;  // printf format of the expected peer with its port
    };
    const Case cases[] = {{"127.0.0.1", "127.0.0.1:%u"}, {"localhost", "127.0.0.1:%u"}, {"::1", "[::1]:%u"}};
    for (const Case& c : cases) {
        SCOPED_TRACE(c.host);
        base::Result<Listener> l = listen_tcp(c.host, 0);
        if (!l.is_ok() && l.status().is_unavailable()) {
            std::printf("note: %s unavailable here: %s\n", c.host, l.status().message().c_str());
            continue;  // the IPv6 case is reported as skipped by the next test
        }
        ASSERT_TRUE(l.is_ok()) << l.status().to_string();
        ASSERT_NE(l->local_port(), 0);
        EXPECT_TRUE(l->unix_path().empty());
        base::Result<Fd> client = connect_tcp(c.host, l->local_port());
        ASSERT_TRUE(client.is_ok()) << client.status().to_string();
        const std::uint16_t client_port = local_address(client->get())->port();
        char expected[64];
        std::snprintf(expected, sizeof expected, c.peer_ip_format, static_cast<unsigned>(client_port));
        round_trip(*l, std::move(client).value(), expected);
    }
}

TEST(ListenTcp, Ipv6LoopbackAndDualStack) {
    base::Result<Listener> v6 = listen_tcp("::1", 0);
    if (!v6.is_ok() && v6.status().is_unavailable())
        GTEST_SKIP() << "IPv6 loopback unavailable: " << v6.status().to_string();
    ASSERT_TRUE(v6.is_ok()) << v6.status().to_string();
    EXPECT_EQ(v6->local_address().to_string(), "[::1]:" + std::to_string(v6->local_port()));

    // "::" without v6_only also takes IPv4 clients, whose addresses come out as plain IPv4.
    base::Result<Listener> dual = listen_tcp("::", 0);
    ASSERT_TRUE(dual.is_ok()) << dual.status().to_string();
    base::Result<Fd> client = connect_tcp("127.0.0.1", dual->local_port());
    ASSERT_TRUE(client.is_ok()) << client.status().to_string();
    const std::uint16_t client_port = local_address(client->get())->port();
    round_trip(*dual, std::move(client).value(), "127.0.0.1:" + std::to_string(client_port));

    ListenOptions only6;
    only6.v6_only = true;
    base::Result<Listener> v6only = listen_tcp("::", 0, only6);
    ASSERT_TRUE(v6only.is_ok()) << v6only.status().to_string();
    EXPECT_TRUE(connect_tcp("127.0.0.1", v6only->local_port()).status().is_io_error());
}

TEST(ListenTcp, AcceptedSocketsHaveNodelayAndEmptyQueueIsUnavailable) {
    base::Result<Listener> l = listen_tcp("127.0.0.1", 0);
    ASSERT_TRUE(l.is_ok());
    base::Result<Accepted> none = l->accept();
    ASSERT_FALSE(none.is_ok());
    EXPECT_TRUE(none.status().is_unavailable());
    for (int i = 0; i < 2; ++i) {  // the first accept checks inheritance, the second relies on it
        base::Result<Fd> client = connect_tcp("127.0.0.1", l->local_port());
        ASSERT_TRUE(client.is_ok());
        wait_readable(l->fd());
        base::Result<Accepted> acc = l->accept();
        ASSERT_TRUE(acc.is_ok());
        int nodelay = 0;
        socklen_t len = sizeof nodelay;
        ASSERT_EQ(::getsockopt(acc->fd.get(), IPPROTO_TCP, TCP_NODELAY, &nodelay, &len), 0);
        EXPECT_EQ(nodelay, 1) << "connection " << i;
    }
}

TEST(ListenTcp, ReusePortGroupSharesOnePortAndSplitsConnections) {
    base::Result<std::vector<Listener>> group = listen_tcp_group("127.0.0.1", 0, 2);
    ASSERT_TRUE(group.is_ok()) << group.status().to_string();
    ASSERT_EQ(group->size(), 2u);
    const std::uint16_t port = (*group)[0].local_port();
    ASSERT_NE(port, 0);
    EXPECT_EQ((*group)[1].local_port(), port);

    constexpr int kClients = 16;
    std::vector<Fd> clients;
    for (int i = 0; i < kClients; ++i) {
        base::Result<Fd> c = connect_tcp("127.0.0.1", port);
        ASSERT_TRUE(c.is_ok());
        clients.push_back(std::move(c).value());
    }
    // Each connection lands in exactly one listener's queue: together they deliver all of them.
    int accepted = 0;
    while (accepted < kClients) {
        pollfd fds[2] = {{(*group)[0].fd(), POLLIN, 0}, {(*group)[1].fd(), POLLIN, 0}};
        ASSERT_GT(::poll(fds, 2, -1), 0);
        for (Listener& l : *group) {
            base::Status s = l.accept_batch(100, [&](Accepted&&) { ++accepted; });
            ASSERT_TRUE(s.is_ok()) << s.to_string();
        }
    }
    EXPECT_EQ(accepted, kClients);
}

TEST(ListenTcp, SamePortWithoutReusePortIsAlreadyExists) {
    ListenOptions no_reuse;
    no_reuse.reuse_port = false;
    base::Result<Listener> first = listen_tcp("127.0.0.1", 0, no_reuse);
    ASSERT_TRUE(first.is_ok());
    base::Result<Listener> second = listen_tcp("127.0.0.1", first->local_port(), no_reuse);
    ASSERT_FALSE(second.is_ok());
    EXPECT_TRUE(second.status().is_already_exists()) << second.status().to_string();
    EXPECT_TRUE(listen_tcp_group("127.0.0.1", 0, 2, no_reuse).status().is_invalid_argument());
    EXPECT_TRUE(listen_tcp("example.com", 0).status().is_invalid_argument());
}

TEST(ListenTcp, ExclusiveGroupRefusesAPortAnotherGroupListensOn) {
    // The first server: an SO_REUSEPORT group, as every server binds.
    base::Result<std::vector<Listener>> first = listen_tcp_group("127.0.0.1", 0, 2);
    ASSERT_TRUE(first.is_ok()) << first.status().to_string();
    const std::uint16_t port = (*first)[0].local_port();

    ListenOptions exclusive;
    exclusive.exclusive = true;
    base::Result<std::vector<Listener>> second = listen_tcp_group("127.0.0.1", port, 2, exclusive);
    ASSERT_FALSE(second.is_ok());
    EXPECT_TRUE(second.status().is_already_exists());
    EXPECT_EQ(second.status().message(), "127.0.0.1:" + std::to_string(port) + ": address already in use");
    // The wildcard address overlaps the first group's address: refused too.
    EXPECT_TRUE(listen_tcp_group("0.0.0.0", port, 1, exclusive).status().is_already_exists());

    // Sharing on purpose (not exclusive) joins the group, as the workers of one server do.
    base::Result<std::vector<Listener>> shared = listen_tcp_group("127.0.0.1", port, 2);
    ASSERT_TRUE(shared.is_ok()) << shared.status().to_string();
    EXPECT_EQ((*shared)[1].local_port(), port);

    // Once every listener is gone the port is free for an exclusive group again; port 0 needs no probe.
    first->clear();
    shared->clear();
    base::Result<std::vector<Listener>> again = listen_tcp_group("127.0.0.1", port, 2, exclusive);
    ASSERT_TRUE(again.is_ok()) << again.status().to_string();
    EXPECT_EQ((*again)[0].local_port(), port);
    EXPECT_TRUE(listen_tcp_group("127.0.0.1", 0, 2, exclusive).is_ok());
}

TEST(ListenTcp, AcceptThroughTheEventLoop) {
    base::SystemClock clock;
    EventLoop loop(clock);
    base::Result<Listener> l = listen_tcp("127.0.0.1", 0);
    ASSERT_TRUE(l.is_ok());
    struct AcceptHandler final : IoHandler {
        Listener* listener;
        std::vector<Accepted> conns;
        void on_io(std::uint32_t) override {
            EXPECT_TRUE(listener->accept_batch(64, [&](Accepted&& a) { conns.push_back(std::move(a)); }).is_ok());
        }
    } handler;
    handler.listener = &*l;
    ASSERT_TRUE(loop.add(l->fd(), EPOLLIN, &handler).is_ok());
    std::vector<Fd> clients;
    for (int i = 0; i < 3; ++i)
        clients.push_back(std::move(connect_tcp("127.0.0.1", l->local_port())).value());
    while (handler.conns.size() < 3)
        loop.run_once(-1);
    EXPECT_EQ(handler.conns.size(), 3u);
    ASSERT_TRUE(loop.remove(l->fd()).is_ok());
}

class UnixListener : public ::testing::Test {
  protected:
    void SetUp() override {
        char tmpl[] = "/tmp/slipstream-net-XXXXXX";
        ASSERT_NE(::mkdtemp(tmpl), nullptr);
        dir_ = tmpl;
        path_ = dir_ + "/s.sock";
    }
    void TearDown() override {
        ::unlink(path_.c_str());
        ::rmdir(dir_.c_str());
    }
    std::string dir_;
    std::string path_;
};

TEST_F(UnixListener, RoundTripModeAndCleanup) {
    {
        base::Result<Listener> l = listen_unix(path_, 0600);
        ASSERT_TRUE(l.is_ok()) << l.status().to_string();
        EXPECT_EQ(l->local_port(), 0);
        EXPECT_EQ(l->unix_path(), path_);
        struct stat st;
        ASSERT_EQ(::lstat(path_.c_str(), &st), 0);
        EXPECT_TRUE(S_ISSOCK(st.st_mode));
        EXPECT_EQ(st.st_mode & 0777, 0600u);
        base::Result<Fd> client = connect_unix(path_);
        ASSERT_TRUE(client.is_ok()) << client.status().to_string();
        Listener moved = std::move(l).value();  // the moved-from listener must not remove the file
        round_trip(moved, std::move(client).value(), "unix");
        ASSERT_EQ(::lstat(path_.c_str(), &st), 0);
    }
    struct stat st;
    EXPECT_NE(::lstat(path_.c_str(), &st), 0) << "socket file left behind";
}

TEST_F(UnixListener, StaleFileIsReplacedLiveServerAndPlainFilesAreNot) {
    {  // a socket file nobody listens on any more (a crashed server's)
        Fd s(::socket(AF_UNIX, SOCK_STREAM, 0));
        sockaddr_un sun{};
        sun.sun_family = AF_UNIX;
        std::snprintf(sun.sun_path, sizeof sun.sun_path, "%s", path_.c_str());
        ASSERT_EQ(::bind(s.get(), reinterpret_cast<sockaddr*>(&sun), sizeof sun), 0);
    }
    base::Result<Listener> l = listen_unix(path_);
    ASSERT_TRUE(l.is_ok()) << l.status().to_string();
    base::Result<Listener> second = listen_unix(path_);
    ASSERT_FALSE(second.is_ok());
    EXPECT_TRUE(second.status().is_already_exists()) << second.status().to_string();

    const std::string plain = dir_ + "/plain";
    { Fd f(::open(plain.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600)); }
    base::Result<Listener> on_file = listen_unix(plain);
    EXPECT_TRUE(on_file.status().is_already_exists());
    struct stat st;
    EXPECT_EQ(::lstat(plain.c_str(), &st), 0);
    EXPECT_TRUE(S_ISREG(st.st_mode));
    ::unlink(plain.c_str());
    EXPECT_TRUE(listen_unix(dir_ + "/" + std::string(120, 'x')).status().is_invalid_argument());
}

TEST(UnixAbstract, RoundTrip) {
    const std::string name = "@slipstream-net-test-" + std::to_string(::getpid());
    base::Result<Listener> l = listen_unix(name);
    ASSERT_TRUE(l.is_ok()) << l.status().to_string();
    base::Result<Fd> client = connect_unix(name);
    ASSERT_TRUE(client.is_ok()) << client.status().to_string();
    round_trip(*l, std::move(client).value(), "unix");
}

// --- EMFILE, in a forked child so the test process keeps its fd limit ---

enum ChildExit : int {
    kChildOk = 0,
    kListenFailed = 10,
    kConnectFailed,
    kRlimitFailed,
    kNotExhausted,
    kAcceptAfterFreeFailed,
    kShedClientNotClosed,
    kReserveLost,
};

const char* child_exit_name(int code) {
    switch (code) {
        case kChildOk:
            return "ok";
        case kListenFailed:
            return "listen failed";
        case kConnectFailed:
            return "connect failed";
        case kRlimitFailed:
            return "setrlimit failed";
        case kNotExhausted:
            return "accept at the fd limit did not return kResourceExhausted";
        case kAcceptAfterFreeFailed:
            return "accept after freeing an fd failed";
        case kShedClientNotClosed:
            return "the reserve fd did not shed the first pending connection";
        case kReserveLost:
            return "the reserve fd was not restored";
        default:
            return "unexpected exit";
    }
}

int emfile_child(bool keep_reserve) {
    ListenOptions options;
    options.keep_reserve_fd = keep_reserve;
    base::Result<Listener> l = listen_tcp("127.0.0.1", 0, options);
    if (!l.is_ok()) return kListenFailed;
    base::Result<Fd> c1 = connect_tcp("127.0.0.1", l->local_port());
    base::Result<Fd> c2 = connect_tcp("127.0.0.1", l->local_port());
    if (!c1.is_ok() || !c2.is_ok()) return kConnectFailed;
    // connect() can return before the server side queues the connection: wait until both are queued
    // (a listening socket's TCP_INFO reports its accept queue length in tcpi_unacked).
    for (;;) {
        tcp_info info{};
        socklen_t len = sizeof info;
        if (::getsockopt(l->fd(), IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return kConnectFailed;
        if (info.tcpi_unacked >= 2) break;
        sched_yield();
    }

    // Fill every descriptor slot under a low limit.
    const int probe = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    rlimit lim{};
    ::getrlimit(RLIMIT_NOFILE, &lim);
    lim.rlim_cur = static_cast<rlim_t>(probe + 8);
    ::close(probe);
    if (::setrlimit(RLIMIT_NOFILE, &lim) != 0) return kRlimitFailed;
    std::vector<int> fillers;
    for (int fd; (fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;)
        fillers.push_back(fd);

    base::Result<Accepted> full = l->accept();
    if (full.is_ok() || !full.status().is_resource_exhausted()) return kNotExhausted;
    if (keep_reserve) {
        // One of the two was accepted and closed at once: its client reads EOF instead of waiting in the
        // backlog. The other stays queued.
        pollfd clients[2] = {{c1->get(), POLLIN, 0}, {c2->get(), POLLIN, 0}};
        if (::poll(clients, 2, -1) != 1) return kShedClientNotClosed;
        const int shed = (clients[0].revents & POLLIN) != 0 ? c1->get() : c2->get();
        char c;
        if (::read(shed, &c, 1) != 0) return kShedClientNotClosed;
        if (::open("/dev/null", O_RDONLY | O_CLOEXEC) >= 0) return kReserveLost;  // the spare took the slot
    }
    ::close(fillers.back());
    fillers.pop_back();
    base::Result<Accepted> again = l->accept();
    if (!again.is_ok()) return kAcceptAfterFreeFailed;
    return kChildOk;
}

TEST(ListenTcp, FdExhaustionIsResourceExhaustedAndRecovers) {
    for (bool keep_reserve : {false, true}) {
        SCOPED_TRACE(keep_reserve ? "with reserve fd" : "without reserve fd");
        const pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) ::_exit(emfile_child(keep_reserve));
        int status = 0;
        ASSERT_EQ(::waitpid(pid, &status, 0), pid);
        ASSERT_TRUE(WIFEXITED(status)) << "child died, status " << status;
        EXPECT_EQ(WEXITSTATUS(status), kChildOk) << child_exit_name(WEXITSTATUS(status));
    }
}

}  // namespace
}  // namespace slipstream::net
