// Tests for the io_uring EventLoop backend's streams: receive, level-triggered re-delivery, batched sends,
// back-pressure, removal with output in flight, errors, buffer exhaustion. (Readiness fds: event_loop_test.)
#include <gtest/gtest.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "net/event_loop.h"
#include "net/fd.h"
#include "net/socket.h"
#include "net/socket_pair_for_tests.h"

namespace slipstream::net {
namespace {

class StreamHandler final : public IoHandler {
  public:
    void on_io(std::uint32_t events) override {
        ++calls;
        last_events = events;
        if (action) action();
    }
    // Reads up to `n` bytes through the stream; "" with `status` set when nothing came.
    std::string read(std::size_t n) {
        std::string buf(n, '\0');
        base::Result<std::size_t> r = io->read(buf);
        status = r.status();
        if (!r.is_ok()) return {};
        buf.resize(*r);
        return buf;
    }
    base::Result<std::size_t> write(std::string_view bytes) {
        iovec iov{const_cast<char*>(bytes.data()), bytes.size()};
        return io->write({&iov, 1});
    }
    StreamIo* io = nullptr;
    int calls = 0;
    std::uint32_t last_events = 0;
    base::Status status;
    std::function<void()> action;
};

// What the peer end has received so far (non-blocking).
std::string drain(int fd) {
    std::string out;
    char buf[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n <= 0) break;
        out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
}

class RingStream : public ::testing::Test {
  protected:
    void SetUp() override {
        base::Status s = EventLoop::io_uring_support();
        if (!s.is_ok()) GTEST_SKIP() << "io_uring unavailable: " << s.to_string();
        EventLoopOptions options;
        options.io_uring = true;
        loop = std::make_unique<EventLoop>(clock, options);
    }
    void add(SocketPair& sp, StreamHandler& h, std::uint32_t events = EPOLLIN | EPOLLRDHUP) {
        base::Result<StreamIo*> r = loop->add_stream(sp.a.get(), events, &h);
        ASSERT_TRUE(r.is_ok()) << r.status().to_string();
        h.io = *r;
    }
    base::SystemClock clock;
    std::unique_ptr<EventLoop> loop;
};

TEST_F(RingStream, ReceivedBytesAreReportedAndRead) {
    SocketPair sp;
    StreamHandler h;
    std::string got;
    h.action = [&] { got += h.read(64); };
    add(sp, h);
    EXPECT_EQ(loop->run_once(0), 0u);  // the receive is in flight, nothing arrived
    ASSERT_EQ(::write(sp.b.get(), "hello", 5), 5);
    EXPECT_EQ(loop->run_once(0), 1u);
    EXPECT_EQ(h.last_events, static_cast<std::uint32_t>(EPOLLIN));
    EXPECT_EQ(got, "hello");
    EXPECT_EQ(h.read(64), "");
    EXPECT_TRUE(h.status.is_unavailable());  // drained: the next receive is armed
    EXPECT_EQ(loop->run_once(0), 0u);
    ASSERT_TRUE(loop->remove(sp.a.get()).is_ok());
}

TEST_F(RingStream, BytesLeftUnreadAreReportedAgain) {
    SocketPair sp;
    StreamHandler h;
    std::vector<std::string> reads;
    h.action = [&] { reads.push_back(h.read(2)); };
    add(sp, h);
    ASSERT_EQ(::write(sp.b.get(), "hello", 5), 5);
    EXPECT_EQ(loop->run_once(0), 1u);
    EXPECT_EQ(loop->run_once(0), 1u);  // level-triggered: three bytes still wait
    EXPECT_EQ(loop->run_once(0), 1u);
    EXPECT_EQ(loop->run_once(0), 0u);
    EXPECT_EQ(reads, (std::vector<std::string>{"he", "ll", "o"}));
}

TEST_F(RingStream, PausedReadingKeepsTheBytesUntilResumed) {
    SocketPair sp;
    StreamHandler h;
    h.action = [&] { ASSERT_TRUE(loop->modify(sp.a.get(), 0).is_ok()); };  // pause without reading
    add(sp, h);
    ASSERT_EQ(::write(sp.b.get(), "abc", 3), 3);
    EXPECT_EQ(loop->run_once(0), 1u);
    EXPECT_EQ(loop->run_once(0), 0u);  // paused: not reported
    std::string got;
    h.action = [&] { got = h.read(64); };
    ASSERT_TRUE(loop->modify(sp.a.get(), EPOLLIN).is_ok());
    EXPECT_EQ(loop->run_once(0), 1u);
    EXPECT_EQ(got, "abc");
}

TEST_F(RingStream, EndOfStreamReportsRdHupAndReadsZero) {
    SocketPair sp;
    StreamHandler h;
    base::Result<std::size_t> r = std::size_t{99};
    h.action = [&] {
        char c;
        r = h.io->read({&c, 1});
        ASSERT_TRUE(loop->modify(sp.a.get(), 0).is_ok());  // as a connection does at EOF
    };
    add(sp, h);
    sp.b.reset();
    EXPECT_EQ(loop->run_once(0), 1u);
    EXPECT_EQ(h.last_events, static_cast<std::uint32_t>(EPOLLIN | EPOLLRDHUP));
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(*r, 0u);
}

TEST_F(RingStream, WritesAreSentTogetherAtTheNextWait) {
    SocketPair sp;
    StreamHandler h;
    add(sp, h);
    ASSERT_TRUE(h.write("one ").is_ok());
    base::Result<std::size_t> second = h.write("two");
    ASSERT_TRUE(second.is_ok());
    EXPECT_EQ(*second, 3u);
    EXPECT_EQ(drain(sp.b.get()), "");  // nothing sent before the loop submits
    loop->run_once(0);
    EXPECT_EQ(drain(sp.b.get()), "one two");
}

TEST_F(RingStream, AFullPeerPausesWritesAndEpolloutReportsTheEnd) {
    SocketPair sp;
    StreamHandler h;
    add(sp, h);
    const std::string big(4 * 1024 * 1024, 'x');
    base::Result<std::size_t> took = h.write(big);
    ASSERT_TRUE(took.is_ok());
    ASSERT_LT(*took, big.size());  // bounded: the rest stays with the caller
    loop->run_once(0);             // more than a socketpair holds: the send waits in the kernel
    EXPECT_TRUE(h.write("y").status().is_unavailable());
    ASSERT_TRUE(loop->modify(sp.a.get(), EPOLLIN | EPOLLOUT).is_ok());
    std::string peer;
    for (int i = 0; i < 10000 && h.calls == 0; ++i) {
        peer += drain(sp.b.get());
        loop->run_once(0);
    }
    EXPECT_EQ(h.last_events, static_cast<std::uint32_t>(EPOLLOUT));
    peer += drain(sp.b.get());
    EXPECT_EQ(peer.size(), *took);
    EXPECT_TRUE(h.write("y").is_ok());
}

TEST_F(RingStream, BytesTakenBeforeRemoveAreStillSent) {
    SocketPair sp;
    StreamHandler h;
    add(sp, h);
    ASSERT_TRUE(h.write("bye").is_ok());
    ASSERT_TRUE(loop->remove(sp.a.get()).is_ok());
    sp.a.reset();  // closed right after remove, before any wait
    loop->run_once(0);
    char buf[16];
    EXPECT_EQ(::read(sp.b.get(), buf, sizeof buf), 3);
    EXPECT_EQ(::read(sp.b.get(), buf, sizeof buf), 0);  // and the close follows
    EXPECT_EQ(h.calls, 0);
}

TEST_F(RingStream, RemoveCancelsTheReceiveSoThePeerSeesTheClose) {
    SocketPair sp;
    StreamHandler h;
    add(sp, h);
    loop->run_once(0);  // the receive is now in the kernel, holding the socket
    ASSERT_TRUE(loop->remove(sp.a.get()).is_ok());
    sp.a.reset();
    loop->run_once(0);
    char c;
    EXPECT_EQ(::read(sp.b.get(), &c, 1), 0);
    EXPECT_EQ(::send(sp.b.get(), "late", 4, MSG_NOSIGNAL), -1);  // nobody holds the other end any more
    EXPECT_EQ(h.calls, 0);
}

TEST_F(RingStream, ShutdownWriteWaitsForTheBytesTaken) {
    SocketPair sp;
    StreamHandler h;
    add(sp, h);
    ASSERT_TRUE(h.write("last").is_ok());
    ASSERT_TRUE(h.io->shutdown_write().is_ok());
    char buf[16];
    EXPECT_EQ(::read(sp.b.get(), buf, sizeof buf), -1);  // neither bytes nor end of stream yet
    loop->run_once(0);
    EXPECT_EQ(::read(sp.b.get(), buf, sizeof buf), 4);
    EXPECT_EQ(::read(sp.b.get(), buf, sizeof buf), 0);
}

TEST_F(RingStream, AFailedSendReportsErrAndFailsLaterWrites) {
    SocketPair sp;
    StreamHandler h;
    add(sp, h, EPOLLOUT);              // not reading: the error must come from the send
    EXPECT_EQ(loop->run_once(0), 1u);  // writable at once
    EXPECT_EQ(h.last_events, static_cast<std::uint32_t>(EPOLLOUT));
    sp.b.reset();
    ASSERT_TRUE(h.write("lost").is_ok());
    EXPECT_EQ(loop->run_once(0), 1u);
    EXPECT_EQ(h.last_events & EPOLLERR, static_cast<std::uint32_t>(EPOLLERR));
    EXPECT_TRUE(h.write("more").status().is_io_error());
}

TEST_F(RingStream, MoreReadersThanProvidedBuffersAllGetTheirBytes) {
    constexpr int kSockets = 300;  // more than the ring's provided buffers
    std::vector<std::unique_ptr<SocketPair>> pairs;
    std::vector<std::unique_ptr<StreamHandler>> handlers;
    std::vector<std::string> got(kSockets);
    for (int i = 0; i < kSockets; ++i) {
        pairs.push_back(std::make_unique<SocketPair>());
        handlers.push_back(std::make_unique<StreamHandler>());
        StreamHandler& h = *handlers.back();
        h.action = [&got, &h, i] { got[static_cast<std::size_t>(i)] += h.read(64); };
        add(*pairs.back(), h);
    }
    loop->run_once(0);
    for (int i = 0; i < kSockets; ++i)
        ASSERT_EQ(::write(pairs[static_cast<std::size_t>(i)]->b.get(), "ping", 4), 4);
    for (int round = 0; round < 10; ++round)
        loop->run_once(0);
    for (int i = 0; i < kSockets; ++i)
        EXPECT_EQ(got[static_cast<std::size_t>(i)], "ping") << i;
}

TEST_F(RingStream, ArrivalsBetweenReadsComeInOrder) {
    SocketPair sp;
    StreamHandler h;
    std::string got;
    h.action = [&] { got += h.read(3); };  // takes less than arrives: the rest waits behind later arrivals
    add(sp, h);
    loop->run_once(0);
    for (const char* piece : {"abcd", "efgh", "ijkl"}) {
        ASSERT_EQ(::write(sp.b.get(), piece, 4), 4);
        loop->run_once(0);
    }
    for (int i = 0; i < 10; ++i)
        loop->run_once(0);
    EXPECT_EQ(got, "abcdefghijkl");
}

TEST_F(RingStream, AReaderThatFallsBehindGetsEveryByteInOrder) {
    SocketPair sp;
    StreamHandler h;
    add(sp, h);
    loop->run_once(0);
    ASSERT_TRUE(loop->modify(sp.a.get(), 0).is_ok());  // not reading: the receive fills up to its cap
    std::string sent;
    for (int i = 0; sent.size() < 1024 * 1024 && i < 100000; ++i) {
        std::string chunk(4096, static_cast<char>('a' + i % 26));
        const ssize_t n = ::write(sp.b.get(), chunk.data(), chunk.size());
        if (n > 0) sent.append(chunk, 0, static_cast<std::size_t>(n));
        if (n < 0) break;  // the socket's buffer is full too: the cap held
        loop->run_once(0);
    }
    ASSERT_LT(sent.size(), std::size_t{1024 * 1024});  // the server side did not absorb everything
    std::string got;
    h.action = [&] {
        for (std::string piece = h.read(65536); !piece.empty(); piece = h.read(65536))
            got += piece;
    };
    ASSERT_TRUE(loop->modify(sp.a.get(), EPOLLIN).is_ok());
    for (int i = 0; i < 1000 && got.size() < sent.size(); ++i)
        loop->run_once(0);
    EXPECT_EQ(got.size(), sent.size());
    EXPECT_TRUE(got == sent);
}

TEST(RingLoop, EpollLoopsRefuseStreams) {
    base::SystemClock clock;
    EventLoop loop(clock);
    SocketPair sp;
    StreamHandler h;
    EXPECT_FALSE(loop.uses_io_uring());
    EXPECT_TRUE(loop.add_stream(sp.a.get(), EPOLLIN, &h).status().is_invalid_argument());
}

}  // namespace
}  // namespace slipstream::net
