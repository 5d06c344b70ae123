// OutputQueue: memory and file pieces over a real socketpair (writev, sendfile, EAGAIN resume) and through a
// write function (the TLS path), ordering, shrinking files and file descriptor accounting.
#include "server/core/output_queue.h"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace slipstream::server {
namespace {

std::size_t open_fds() {
    std::size_t n = 0;
    DIR* d = ::opendir("/proc/self/fd");
    if (d == nullptr) return 0;
    while (dirent* e = ::readdir(d))
        if (e->d_name[0] != '.') ++n;
    ::closedir(d);
    return n - 1;  // the directory stream's own descriptor
}

std::string pattern(std::size_t n, unsigned seed) {
    std::string s(n, '\0');
    for (std::size_t i = 0; i < n; ++i)
        s[i] = static_cast<char>((i * 31 + seed) % 251);
    return s;
}

// A temporary file with `content`, removed (and closed) on destruction.
class TempFile {
  public:
    explicit TempFile(const std::string& content) {
        const char* dir = std::getenv("TMPDIR");
        path_ = std::string(dir != nullptr ? dir : "/tmp") + "/ss_output_queue_XXXXXX";
        int fd = ::mkstemp(path_.data());
        EXPECT_GE(fd, 0);
        EXPECT_EQ(::write(fd, content.data(), content.size()), static_cast<ssize_t>(content.size()));
        ::close(fd);
    }
    ~TempFile() { ::unlink(path_.c_str()); }
    net::Fd open() const { return net::Fd(::open(path_.c_str(), O_RDONLY | O_CLOEXEC)); }
    const std::string& path() const { return path_; }

  private:
    std::string path_;
};

// A connected non-blocking socket pair; the writer side has a small send buffer so flushes block often.
struct Pair {
    int writer = -1;
    int reader = -1;
    Pair() {
        int sv[2];
        EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv), 0);
        writer = sv[0];
        reader = sv[1];
        int small = 4096;
        ::setsockopt(writer, SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
    }
    ~Pair() {
        ::close(writer);
        ::close(reader);
    }
    void read_into(std::string& out) const {
        char buf[65536];
        ssize_t n;
        while ((n = ::read(reader, buf, sizeof buf)) > 0)
            out.append(buf, static_cast<std::size_t>(n));
    }
};

// Flushes `q` into the pair until it is empty, reading whenever the writer blocks. Returns what arrived and
// counts the flushes that ended blocked (kUnavailable or partial).
std::string pump(OutputQueue& q, Pair& p, int* blocked) {
    std::string got;
    for (int guard = 0; !q.empty() && guard < 100000; ++guard) {
        base::Result<std::size_t> r = q.flush(p.writer);
        EXPECT_TRUE(r.is_ok() || r.status().is_unavailable());
        if (!r.is_ok() && !r.status().is_unavailable()) break;
        if (!q.empty()) ++*blocked;
        p.read_into(got);
    }
    p.read_into(got);
    return got;
}

TEST(OutputQueue, MemoryFileMemoryInOrder) {
    std::string body = pattern(300000, 7);
    TempFile file(body);
    OutputQueue q;
    q.append(std::string_view("HEAD1\r\n"));
    q.append_file(file.open(), 1000, 200000);
    q.append(std::string_view("HEAD2\r\n"));
    q.append(pattern(20000, 3));  // moved piece
    q.append_file(file.open(), 0, 10);
    q.append(std::string_view("END"));
    EXPECT_EQ(q.size(), 7 + 200000 + 7 + 20000 + 10 + 3);
    Pair p;
    int blocked = 0;
    std::string got = pump(q, p, &blocked);
    std::string want =
        "HEAD1\r\n" + body.substr(1000, 200000) + "HEAD2\r\n" + pattern(20000, 3) + body.substr(0, 10) + "END";
    EXPECT_EQ(got.size(), want.size());
    EXPECT_TRUE(got == want);
    EXPECT_GT(blocked, 0);  // sendfile stopped on EAGAIN and resumed at the right offset
    EXPECT_EQ(q.size(), 0u);
}

TEST(OutputQueue, TakeAllMovesFilePiecesAfterPartialSend) {
    std::string body = pattern(100000, 1);
    TempFile file(body);
    OutputQueue slot;
    slot.append(std::string_view("h"));
    slot.append_file(file.open(), 5, 50000);
    OutputQueue out;
    out.append(std::string_view("first|"));
    out.take_all(slot);
    EXPECT_TRUE(slot.empty());
    out.append(std::string_view("|next"));
    Pair p;
    int blocked = 0;
    std::string got = pump(out, p, &blocked);
    EXPECT_TRUE(got == "first|h" + body.substr(5, 50000) + "|next");
}

// The TLS path: a write function that takes at most 1000 bytes and refuses every third call.
struct FakeTls {
    std::string wire;
    std::vector<std::size_t> offered;  // bytes offered per call
    int calls = 0;
    static base::Result<std::size_t> write(void* context, std::span<const iovec> pieces) {
        auto& t = *static_cast<FakeTls*>(context);
        std::size_t offered = 0;
        for (const iovec& v : pieces)
            offered += v.iov_len;
        t.offered.push_back(offered);
        if (++t.calls % 3 == 0) return base::Status::unavailable("full");
        std::size_t take = std::min<std::size_t>(1000, pieces[0].iov_len);
        t.wire.append(static_cast<const char*>(pieces[0].iov_base), take);
        return take;
    }
};

// Sends 2000 bytes of `q` through a FakeTls (two 1000-byte writes, then a refusal).
void send_first_2000(OutputQueue& q) {
    FakeTls tls;
    char buffer[16];
    base::Result<std::size_t> r = q.flush_to(&FakeTls::write, &tls, buffer);
    ASSERT_TRUE(r.is_ok());
    ASSERT_EQ(*r, 2000u);
}

// take_all() after the front memory piece was partly sent: the rest follows, copied when small, moved when large.
TEST(OutputQueue, TakeAllAfterPartialSendOfMemory) {
    for (std::size_t n : {std::size_t{3000}, std::size_t{40000}}) {
        SCOPED_TRACE(n);
        const std::string body = pattern(n, 9);
        OutputQueue slot;
        slot.append(std::string(body));
        ASSERT_NO_FATAL_FAILURE(send_first_2000(slot));
        OutputQueue out;
        out.append(std::string_view("<"));
        out.take_all(slot);
        EXPECT_TRUE(slot.empty());
        out.append(std::string_view(">"));
        EXPECT_EQ(out.size(), n - 2000 + 2);
        Pair p;
        int blocked = 0;
        EXPECT_TRUE(pump(out, p, &blocked) == "<" + body.substr(2000) + ">");
    }
}

// Small appends and in-place space share one piece, which grows past its first room and serves again once sent.
TEST(OutputQueue, CoalescingPieceGrowsAndServesAgainAfterSend) {
    OutputQueue q;
    std::memcpy(q.append_space(4), "head", 4);
    const std::string big = pattern(5000, 2);
    q.append(std::string_view(big));
    q.append(std::string_view("tail"));
    EXPECT_EQ(q.size(), 5008u);
    Pair p;
    int blocked = 0;
    EXPECT_TRUE(pump(q, p, &blocked) == "head" + big + "tail");
    std::memcpy(q.append_space(5), "again", 5);
    q.append(std::string_view("!"));
    EXPECT_EQ(q.size(), 6u);
    EXPECT_EQ(pump(q, p, &blocked), "again!");
}

// A partly sent head grows (its unsent rest moves to the front first); appends after a moved body wait behind
// it, and once everything was sent appends land in the head again.
TEST(OutputQueue, PartlySentHeadGrowsAndKeepsOrderAroundMovedBodies) {
    OutputQueue q;
    const std::string first = pattern(3000, 4);
    q.append(std::string_view(first));
    ASSERT_NO_FATAL_FAILURE(send_first_2000(q));
    const std::string grow = pattern(8000, 5);
    q.append(std::string_view(grow));
    const std::string moved = pattern(OutputQueue::kMoveThreshold, 6);
    q.append(std::string(moved));
    q.append(std::string_view("after"));
    EXPECT_EQ(q.size(), 1000 + 8000 + moved.size() + 5);
    Pair p;
    int blocked = 0;
    EXPECT_TRUE(pump(q, p, &blocked) == first.substr(2000) + grow + moved + "after");
    q.append(std::string_view("again"));
    EXPECT_EQ(q.size(), 5u);
    EXPECT_EQ(pump(q, p, &blocked), "again");
}

TEST(OutputQueue, FlushToReadsFilesIntoTheBuffer) {
    std::string body = pattern(40000, 9);
    TempFile file(body);
    OutputQueue q;
    q.append(std::string_view("head"));
    q.append_file(file.open(), 100, 30000);
    q.append(std::string_view("tail"));
    FakeTls tls;
    char buffer[4096];
    for (int guard = 0; !q.empty() && guard < 10000; ++guard) {
        base::Result<std::size_t> r = q.flush_to(&FakeTls::write, &tls, buffer);
        ASSERT_TRUE(r.is_ok() || r.status().is_unavailable());
    }
    EXPECT_TRUE(tls.wire == "head" + body.substr(100, 30000) + "tail");
    for (std::size_t n : tls.offered)
        EXPECT_LE(n, sizeof buffer);  // a file piece is offered at most one buffer at a time
}

TEST(OutputQueue, ShrunkFileIsAnError) {
    std::string body = pattern(100000, 2);
    TempFile file(body);
    for (bool tls : {false, true}) {
        OutputQueue q;
        q.append(std::string_view("head"));
        q.append_file(file.open(), 0, body.size() + 10);  // the region is longer than the file
        base::Result<std::size_t> r = base::Status::internal("unset");
        if (tls) {
            FakeTls t;
            char buffer[100000];
            for (int i = 0; i < 1000; ++i) {
                r = q.flush_to(&FakeTls::write, &t, buffer);
                if (!r.is_ok() && !r.status().is_unavailable()) break;
            }
            EXPECT_TRUE(t.wire == "head" + body);
        } else {
            Pair p;
            std::string got;
            for (int i = 0; i < 1000; ++i) {
                r = q.flush(p.writer);
                if (!r.is_ok() && !r.status().is_unavailable()) break;
                p.read_into(got);
            }
            p.read_into(got);
            EXPECT_TRUE(got == "head" + body);
        }
        EXPECT_TRUE(r.status().is_io_error()) << tls;
    }
}

TEST(OutputQueue, FilesAreClosedWhenSentClearedOrDropped) {
    std::string body = pattern(50000, 4);
    TempFile file(body);
    std::size_t before = open_fds();
    {
        OutputQueue q;
        q.append_file(file.open(), 0, 1000);
        q.append_file(file.open(), 0, 0);  // nothing to send: closed at once
        EXPECT_EQ(open_fds(), before + 1);
        Pair p;
        int blocked = 0;
        std::size_t with_pair = open_fds();
        EXPECT_EQ(pump(q, p, &blocked).size(), 1000u);
        EXPECT_EQ(open_fds(), with_pair - 1);  // sent: closed
    }
    {
        OutputQueue q;
        q.append_file(file.open(), 0, 1000);
        q.append_file(file.open(), 0, 1000);
        EXPECT_EQ(open_fds(), before + 2);
        q.clear();
        EXPECT_EQ(open_fds(), before);
        q.append_file(file.open(), 0, 1000);
        OutputQueue other;
        other.take_all(q);
        EXPECT_EQ(open_fds(), before + 1);
    }  // dropped with the queue (the connection died)
    EXPECT_EQ(open_fds(), before);
}

}  // namespace
}  // namespace slipstream::server
