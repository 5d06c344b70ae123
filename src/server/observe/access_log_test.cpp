// Tests of the access log: compact records in, the exact JSON lines out; the writer thread and drops.
#include "server/observe/access_log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "metrics/registry.h"

namespace slipstream::server {
namespace {

constexpr std::int64_t kWall = 1'764'513'000'123'456'789;  // 2025-11-30T14:30:00.123Z

net::SocketAddress address(std::string_view host, std::uint16_t port) {
    return net::SocketAddress::from_host_port(host, port).value();
}

std::string format_all(const AccessBatch& records, std::size_t expected_lines) {
    AccessLineFormatter formatter;
    std::string out;
    EXPECT_EQ(formatter.format(records.bytes(), out), expected_lines);
    return out;
}

TEST(AccessLineFormatterTest, FormatsEachFieldExactly) {
    const net::SocketAddress v4 = address("127.0.0.1", 5000);
    const net::SocketAddress v6 = address("::1", 443);
    const net::SocketAddress unix_peer = net::SocketAddress::unix_domain();
    struct Case {
        const char* name;
        AccessEntry entry;
        const char* line;
    };
    const Case cases[] = {
        {"plain",
         {kWall, 42'999, 195, 200, false, "GET", "/hello", "/hello", "abc", "4bf92f3577b34da6a3ce929d0e0e4736", &v4},
         R"({"time":"2025-11-30T14:30:00.123Z","method":"GET","route":"/hello","path":"/hello","status":200,)"
         R"("duration_ms":0.042,"bytes":195,"request_id":"abc","trace_id":"4bf92f3577b34da6a3ce929d0e0e4736",)"
         R"("peer":"127.0.0.1:5000"})"},
        {"escaped path, unmatched, long duration",
         {kWall + 1'000'000'000, 12'345'678'901, 0, 404, false, "BREW", "(unmatched)", "/a\"b\\c\x01\xc3\xa9", "id-1",
          "", &v6},
         R"x({"time":"2025-11-30T14:30:01.123Z","method":"BREW","route":"(unmatched)","path":"/a\"b\\c\u0001é",)x"
         R"("status":404,"duration_ms":12345.678,"bytes":0,"request_id":"id-1","trace_id":"","peer":"[::1]:443"})"},
        {"aborted, negative duration, unix peer",
         {kWall, -5, 7, 200, true, "POST", "/items/{id}", "/items/1", "", "", &unix_peer},
         R"({"time":"2025-11-30T14:30:00.123Z","method":"POST","route":"/items/{id}","path":"/items/1","status":200,)"
         R"("duration_ms":0.000,"bytes":7,"request_id":"","trace_id":"","peer":"unix","aborted":true})"},
        {"no peer",
         {kWall, 1'000'000, 1, 101, false, "GET", "/ws", "/ws", "x", "", nullptr},
         R"({"time":"2025-11-30T14:30:00.123Z","method":"GET","route":"/ws","path":"/ws","status":101,)"
         R"("duration_ms":1.000,"bytes":1,"request_id":"x","trace_id":"","peer":""})"},
    };
    for (const Case& c : cases) {
        AccessBatch records;
        records.append(c.entry);
        EXPECT_EQ(format_all(records, 1), std::string(c.line) + "\n") << c.name;
    }
}

TEST(AccessLineFormatterTest, KeepsOrderAndPeersAcrossRecords) {
    const net::SocketAddress a = address("10.0.0.1", 1), b = address("10.0.0.2", 2);
    AccessBatch records;
    std::string expected;
    const net::SocketAddress* peers[] = {&a, &a, &b, &a};
    for (int i = 0; i < 4; ++i) {
        std::string id = "r" + std::to_string(i);
        records.append({kWall, 0, 0, 200, false, "GET", "/", "/", id, "", peers[i]});
        expected += R"({"time":"2025-11-30T14:30:00.123Z","method":"GET","route":"/","path":"/","status":200,)"
                    R"("duration_ms":0.000,"bytes":0,"request_id":")" +
                    id + R"(","trace_id":"","peer":")" + (peers[i] == &a ? "10.0.0.1:1" : "10.0.0.2:2") + "\"}\n";
    }
    EXPECT_EQ(format_all(records, 4), expected);
}

TEST(AccessLineFormatterTest, StopsAtACutRecord) {
    const net::SocketAddress a = address("10.0.0.1", 1);
    AccessBatch records;
    records.append({kWall, 0, 0, 200, false, "GET", "/", "/", "", "", &a});
    const std::size_t one = records.size();
    records.append({kWall, 0, 0, 200, false, "GET", "/", "/long/path", "", "", &a});
    for (std::size_t cut : {one + 1, records.size() - 1}) {
        AccessLineFormatter formatter;
        std::string out;
        EXPECT_EQ(formatter.format(records.bytes().substr(0, cut), out), 1u) << cut;
    }
}

// Reads everything from a pipe until the writer side is closed.
std::string read_all(int fd) {
    std::string text;
    char buf[4096];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;)
        text.append(buf, static_cast<std::size_t>(n));
    return text;
}

TEST(AccessLogTest, WritesSubmittedBatchesInOrderOnDestruction) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    metrics::Registry registry;
    metrics::Counter& dropped = registry.counter("dropped_total", "Dropped.");
    const net::SocketAddress a = address("127.0.0.1", 9);
    {
        AccessLog log(fds[1], 1 << 20, 3'600'000, dropped);
        AccessBatch batch;
        for (int i = 0; i < 3; ++i) {
            batch.append({kWall, 0, 0, 200 + i, false, "GET", "/", "/", "", "", &a});
            if (i != 1) log.submit(batch);  // batches of 1 and 2 records
            EXPECT_EQ(batch.empty(), i != 1);
        }
    }
    ::close(fds[1]);
    std::string text = read_all(fds[0]);
    ::close(fds[0]);
    std::vector<std::string> statuses;
    for (std::size_t at = 0; (at = text.find("\"status\":", at)) != std::string::npos; at += 9)
        statuses.push_back(text.substr(at + 9, 3));
    EXPECT_EQ(statuses, (std::vector<std::string>{"200", "201", "202"}));
    EXPECT_EQ(dropped.value(), 0u);
}

TEST(AccessLogTest, DropsAndCountsBatchesPastTheBound) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    metrics::Registry registry;
    metrics::Counter& dropped = registry.counter("dropped_total", "Dropped.");
    const net::SocketAddress a = address("127.0.0.1", 9);
    AccessBatch one;
    one.append({kWall, 0, 0, 200, false, "GET", "/", "/", "", "", &a});
    {
        // The bound is below two records, whatever the writer has taken: a batch of two is always dropped.
        AccessLog log(fds[1], one.size() * 2 - 1, 3'600'000, dropped);
        AccessBatch batch;
        batch.append({kWall, 0, 0, 500, false, "GET", "/", "/", "", "", &a});
        batch.append({kWall, 0, 0, 501, false, "GET", "/", "/", "", "", &a});
        log.submit(batch);
        EXPECT_TRUE(batch.empty());
        log.submit(one);
    }
    ::close(fds[1]);
    std::string text = read_all(fds[0]);
    ::close(fds[0]);
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1);
    EXPECT_NE(text.find("\"status\":200,"), std::string::npos);
    EXPECT_EQ(dropped.value(), 2u);
}

}  // namespace
}  // namespace slipstream::server
