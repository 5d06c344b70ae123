// A small app of streamed responses for the end-to-end tests of drain, timeouts, disconnects and flow control.
//
//   GET /lab/plain?chunks=N&interval_ms=I   "chunk <i>\n" every I ms (N=0: until cancelled), text/plain
//   GET /lab/events?interval_ms=I           an endless event stream of "tick" events
//   GET /lab/bulk?mib=M                     M MiB of 16-byte records "%015d\n" (record index), paced by
//                                           Responder::writable()/on_writable()
//   GET /lab/slow-start?delay_ms=D          registers on_cancel, then starts a stream after D ms
//   GET /lab/file?path=P&offset=O&length=L  the file region as the body (Response::file; whole file by default)
//   GET /lab/stats                          {"bulk_bytes": written by /lab/bulk, "bulk_paused": /lab/bulk producers
//                                           parked now (writable() was false; waiting for on_writable()),
//                                           "cancels": on_cancel calls}
// Each producer prints "<route> producer: <how it ended>" on stderr when it stops, and "<route> producer:
// on_cancel" when its cancel callback runs.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "app/serve_main.h"
#include "slipstream/slipstream.h"
#include "slipstream/sse.h"

namespace {

struct Stats {
    std::atomic<std::uint64_t> bulk_bytes{0};
    std::atomic<int> bulk_paused{0};
    std::atomic<int> cancels{0};
};

// What a producer thread waits on: the client left (stop) or the stream's queue drained (ready).
struct Gate {
    std::mutex m;
    std::condition_variable cv;
    bool stop = false;
    bool ready = false;

    void cancel() {
        std::lock_guard lock(m);
        stop = true;
        cv.notify_all();
    }
    // Waits `ms` or until cancelled; true when cancelled.
    bool sleep(long ms) {
        std::unique_lock lock(m);
        return cv.wait_for(lock, std::chrono::milliseconds(ms), [&] { return stop; });
    }
};

// Blocks until the responder's queue drained (or the stream ended or the client left).
void wait_writable(slipstream::Responder& r, const std::shared_ptr<Gate>& gate) {
    {
        std::lock_guard lock(gate->m);
        gate->ready = false;
    }
    r.on_writable([gate] {
        std::lock_guard lock(gate->m);
        gate->ready = true;
        gate->cv.notify_all();
    });
    std::unique_lock lock(gate->m);
    gate->cv.wait(lock, [&] { return gate->ready || gate->stop; });
}

long query_number(slipstream::Request& req, const char* name, long fallback, long max) {
    auto v = req.query(name);
    long x = v ? std::strtol(v->c_str(), nullptr, 10) : fallback;
    return x < 0 ? 0 : x > max ? max : x;
}

// "%015u\n" of `index` into 16 bytes.
void write_record(char* out, std::uint64_t index) {
    for (int i = 14; i >= 0; --i, index /= 10)
        out[i] = static_cast<char>('0' + index % 10);
    out[15] = '\n';
}

void report(const char* route, const char* how) {
    std::fprintf(stderr, "%s producer: %s\n", route, how);
    std::fflush(stderr);
}

// The on_cancel callback of the producers the tests count: counts, reports (on the I/O thread, before the
// process can exit) and wakes the producer.
auto counted_cancel(const std::shared_ptr<Stats>& stats, const std::shared_ptr<Gate>& gate, const char* route) {
    return [stats, gate, route] {
        stats->cancels.fetch_add(1);
        report(route, "on_cancel");
        gate->cancel();
    };
}

slipstream::Response text_stream_head() {
    slipstream::Response head(200);
    head.content_type = "text/plain; charset=utf-8";
    return head;
}

void plain(slipstream::App& app, const std::shared_ptr<Stats>& stats) {
    app.route_async("GET", "/lab/plain", [stats](slipstream::Request& req, slipstream::Responder r) {
        long n = query_number(req, "chunks", 0, 1'000'000), interval = query_number(req, "interval_ms", 50, 60'000);
        auto gate = std::make_shared<Gate>();
        r.on_cancel(counted_cancel(stats, gate, "plain"));
        std::thread([n, interval, gate, r = std::move(r)]() mutable {
            if (!r.start_stream(text_stream_head())) return report("plain", "left");
            for (long i = 0; n == 0 || i < n; ++i) {
                if (!r.write("chunk " + std::to_string(i) + "\n")) return report("plain", "cancelled");
                if (gate->sleep(interval)) return report("plain", "cancelled");
            }
            r.end();
            report("plain", "done");
        }).detach();
    });
}

void events(slipstream::App& app, const std::shared_ptr<Stats>& stats) {
    app.route_async("GET", "/lab/events", [stats](slipstream::Request& req, slipstream::Responder r) {
        long interval = query_number(req, "interval_ms", 50, 60'000);
        slipstream::EventStream stream(std::move(r));
        auto gate = std::make_shared<Gate>();
        stream.on_cancel(counted_cancel(stats, gate, "events"));
        std::thread([interval, gate, s = std::move(stream)]() mutable {
            for (long i = 1;; ++i) {
                if (!s.send(std::to_string(i), "tick", std::to_string(i))) return report("events", "cancelled");
                if (gate->sleep(interval)) return report("events", "cancelled");
            }
        }).detach();
    });
}

void bulk(slipstream::App& app, const std::shared_ptr<Stats>& stats) {
    app.route_async("GET", "/lab/bulk", [stats](slipstream::Request& req, slipstream::Responder r) {
        long mib = query_number(req, "mib", 1, 4096);
        auto gate = std::make_shared<Gate>();
        r.on_cancel([gate] { gate->cancel(); });
        std::thread([mib, gate, stats, r = std::move(r)]() mutable {
            slipstream::Response head(200);
            head.content_type = "application/octet-stream";
            if (!r.start_stream(std::move(head))) return report("bulk", "left");
            constexpr long kRecords = 4096;  // 64 KiB per chunk
            std::string chunk(kRecords * 16, '\0');
            for (long c = 0; c < mib * 16; ++c) {
                for (long k = 0; k < kRecords; ++k)
                    write_record(chunk.data() + k * 16, static_cast<std::uint64_t>(c * kRecords + k));
                if (!r.write(chunk)) return report("bulk", "cancelled");
                stats->bulk_bytes.fetch_add(chunk.size());
                if (!r.writable()) {
                    // Counted while parked, so a test sees the back-pressure itself rather than guessing it
                    // from bulk_bytes standing still.
                    stats->bulk_paused.fetch_add(1);
                    wait_writable(r, gate);
                    stats->bulk_paused.fetch_sub(1);
                }
            }
            r.end();
            report("bulk", "done");
        }).detach();
    });
}

void slow_start(slipstream::App& app, const std::shared_ptr<Stats>& stats) {
    app.route_async("GET", "/lab/slow-start", [stats](slipstream::Request& req, slipstream::Responder r) {
        long delay = query_number(req, "delay_ms", 1000, 60'000);
        auto gate = std::make_shared<Gate>();
        r.on_cancel(counted_cancel(stats, gate, "slow-start"));
        std::thread([delay, gate, r = std::move(r)]() mutable {
            if (gate->sleep(delay)) return report("slow-start", "cancelled");
            if (!r.start_stream(text_stream_head())) return report("slow-start", "left");
            r.write("late\n");
            r.end();
            report("slow-start", "done");
        }).detach();
    });
}

void file(slipstream::App& app) {
    app.get("/lab/file", [](slipstream::Request& req) {
        auto path = req.query("path");
        if (!path) return slipstream::Response::text("path is required", 400);
        auto number = [&req](const char* name, std::uint64_t fallback) {
            auto v = req.query(name);
            return v ? std::strtoull(v->c_str(), nullptr, 10) : fallback;
        };
        return slipstream::Response::file(*path, number("offset", 0), number("length", slipstream::FileBody::kToEnd),
                                          "application/octet-stream");
    });
}

void add_routes(slipstream::App& app) {
    auto stats = std::make_shared<Stats>();
    plain(app, stats);
    events(app, stats);
    bulk(app, stats);
    slow_start(app, stats);
    file(app);
    app.get("/lab/stats", [stats](slipstream::Request&) {
        return slipstream::Response::json(R"({"bulk_bytes":)" + std::to_string(stats->bulk_bytes.load()) +
                                          R"(,"bulk_paused":)" + std::to_string(stats->bulk_paused.load()) +
                                          R"(,"cancels":)" + std::to_string(stats->cancels.load()) + "}");
    });
}

}  // namespace

int main(int argc, char** argv, char** envp) {
    return slipstream::app::serve_main(argc, argv, envp, "stream_lab",
                                       [](slipstream::App& app, const slipstream::app::Config&) { add_routes(app); });
}
