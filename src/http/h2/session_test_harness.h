// Test helpers for ServerSession: raw frames and HPACK literals written by hand, a recording handler, a harness.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "http/h2/session.h"

namespace slipstream::http::h2::test {

constexpr std::string_view kPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
constexpr base::MonoNanos kNow = 1'000'000'000;

// ---- raw frames ----

inline std::string frame(std::uint8_t type, std::uint8_t flags, std::uint32_t stream, std::string_view payload) {
    std::string f;
    auto len = static_cast<std::uint32_t>(payload.size());
    f.push_back(static_cast<char>(len >> 16));
    f.push_back(static_cast<char>(len >> 8));
    f.push_back(static_cast<char>(len));
    f.push_back(static_cast<char>(type));
    f.push_back(static_cast<char>(flags));
    for (int shift : {24, 16, 8, 0})
        f.push_back(static_cast<char>(stream >> shift));
    f.append(payload);
    return f;
}

// HPACK integer with an N-bit prefix; `first` carries the pattern bits above the prefix.
inline std::string hpack_int(std::uint8_t first, int prefix_bits, std::size_t v) {
    std::string out;
    std::size_t max = (1u << prefix_bits) - 1;
    if (v < max) {
        out.push_back(static_cast<char>(first | v));
        return out;
    }
    out.push_back(static_cast<char>(first | max));
    v -= max;
    while (v >= 128) {
        out.push_back(static_cast<char>(v % 128 + 128));
        v /= 128;
    }
    out.push_back(static_cast<char>(v));
    return out;
}

// A literal field; `index` true adds it to the dynamic table.
inline std::string literal(std::string_view name, std::string_view value, bool index = false) {
    std::string out(1, static_cast<char>(index ? 0x40 : 0x00));
    out += hpack_int(0, 7, name.size());
    out.append(name);
    out += hpack_int(0, 7, value.size());
    out.append(value);
    return out;
}

inline std::string get_block(std::string_view path) {
    return literal(":method", "GET") + literal(":scheme", "https") + literal(":authority", "localhost") +
           literal(":path", path);
}

constexpr std::uint8_t kData = 0, kHeaders = 1, kPriority = 2, kRst = 3, kSettings = 4, kPushPromise = 5, kPing = 6,
                       kGoaway = 7, kContinuation = 9;
constexpr std::uint8_t kEndStream = 1, kEndHeaders = 4, kAck = 1, kPadded = 8, kPriorityFlag = 0x20;

struct Frame {
    std::uint8_t type;
    std::uint8_t flags;
    std::uint32_t stream;
    std::string payload;
};

inline std::vector<Frame> parse_frames(std::string_view bytes) {
    std::vector<Frame> out;
    while (bytes.size() >= 9) {
        auto b = [&](std::size_t i) { return static_cast<std::uint8_t>(bytes[i]); };
        std::size_t len = b(0) << 16 | b(1) << 8 | b(2);
        if (bytes.size() < 9 + len) break;
        std::uint32_t stream = (b(5) & 0x7f) << 24 | b(6) << 16 | b(7) << 8 | b(8);
        out.push_back({b(3), b(4), stream, std::string(bytes.substr(9, len))});
        bytes.remove_prefix(9 + len);
    }
    return out;
}

inline std::uint32_t be32(std::string_view p, std::size_t at) {
    auto b = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<std::uint8_t>(p[at + i])); };
    return b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3);
}

// The GOAWAY error code in `frames`, or -1.
inline long goaway_code(const std::vector<Frame>& frames) {
    for (const Frame& f : frames)
        if (f.type == kGoaway) return be32(f.payload, 4);
    return -1;
}

// ---- a recording handler ----

struct Received {
    StreamId id;
    std::string method, path, authority, body;
    std::vector<std::pair<std::string, std::string>> headers;
    int error_status;
    std::string protocol;
};

struct Recorder final : SessionHandler {
    ServerSession* session = nullptr;
    std::vector<Received> requests;
    std::vector<StreamId> resets;
    bool answer = true;
    bool with_request_ids = false;  // also answer x-request-id: id-<stream> and a long mixed-case field name

    void on_request(StreamId id, const RequestHead& r) override {
        Received got{id, std::string(r.method), std::string(r.path),    std::string(r.authority), std::string(r.body),
                     {}, r.error_status,        std::string(r.protocol)};
        for (const HeaderField& h : r.headers)
            got.headers.emplace_back(h.name, h.value);
        requests.push_back(std::move(got));
        if (!answer) return;
        int status = r.error_status ? r.error_status : 200;
        std::string request_id = "id-" + std::to_string(id);
        std::vector<HeaderField> h = {{"Content-Type", "text/plain"}, {"X-Custom", "1"}};
        if (with_request_ids) {
            h.push_back({"X-Request-ID", request_id});
            h.push_back({"X-Long-Mixed-Case-Field-Name", "v"});
        }
        ASSERT_TRUE(session->respond(id, status, h, "path=" + std::string(r.path)).is_ok());
    }
    void on_stream_reset(StreamId id) override {
        resets.push_back(id);
        reset_bytes_sent.push_back(session->body_bytes_sent(id));  // still known during the call
    }
    void on_stream_data(StreamId id, std::string_view data) override { tunnel_data[id].append(data); }
    void on_stream_end(StreamId id) override { ends.push_back(id); }
    void on_stream_closed(StreamId id) override { closed.push_back(id); }
    std::vector<std::size_t> reset_bytes_sent;
    std::map<StreamId, std::string> tunnel_data;
    std::vector<StreamId> ends;
    std::vector<StreamId> closed;
};

struct Harness {
    explicit Harness(SessionConfig config = {}) {
        auto s = ServerSession::create(config, recorder);
        EXPECT_TRUE(s.is_ok());
        session = std::move(s).value();
        recorder.session = session.get();
    }
    base::Status feed(std::string_view bytes) { return session->receive(bytes, kNow); }
    std::vector<Frame> output() {
        std::string out;
        session->send(out, 1 << 24);
        return parse_frames(out);
    }
    Recorder recorder;
    std::unique_ptr<ServerSession> session;
};

inline std::string client_start() {
    return std::string(kPreface) + frame(kSettings, 0, 0, "");
}

constexpr std::uint8_t kWindowUpdate = 8;

inline std::string connect_block(std::string_view protocol, std::string_view method = "CONNECT") {
    return literal(":method", method) + literal(":protocol", protocol) + literal(":scheme", "https") +
           literal(":authority", "localhost") + literal(":path", "/ws") + literal("sec-websocket-version", "13");
}

// A session past the preface whose SETTINGS the client acknowledged (so its initial window applies).
inline void settle(Harness& h) {
    ASSERT_TRUE(h.feed(client_start()).is_ok());
    h.output();
    ASSERT_TRUE(h.feed(frame(kSettings, kAck, 0, "")).is_ok());
}

inline bool has_frame(const std::vector<Frame>& frames, std::uint8_t type, std::uint32_t stream) {
    for (const Frame& f : frames)
        if (f.type == type && f.stream == stream) return true;
    return false;
}

// The RST_STREAM code sent for `stream`, or -1 when none was.
inline std::int64_t rst_code(const std::vector<Frame>& out, std::uint32_t stream) {
    for (const Frame& f : out)
        if (f.type == kRst && f.stream == stream && f.payload.size() == 4) return be32(f.payload, 0);
    return -1;
}

// ---- more raw-frame vocabulary ----

inline constexpr long kProtocolError = 1, kFlowControlError = 3, kStreamClosed = 5, kFrameSizeError = 6,
                      kRefusedStream = 7, kCompressionError = 9, kEnhanceYourCalm = 11;

inline std::string u32(std::uint32_t v) {
    return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}
inline std::string setting(std::uint16_t id, std::uint32_t v) {
    return std::string{static_cast<char>(id >> 8), static_cast<char>(id)} + u32(v);
}
inline std::string post_block(std::string_view path = "/up") {
    return literal(":method", "POST") + literal(":scheme", "https") + literal(":authority", "x") +
           literal(":path", path);
}
inline std::string get(std::uint32_t id, std::string_view path = "/") {
    return frame(kHeaders, kEndHeaders | kEndStream, id, get_block(path));
}
inline std::string window_update(std::uint32_t id, std::uint32_t inc) {
    return frame(kWindowUpdate, 0, id, u32(inc));
}

inline std::vector<Frame> of_type(const std::vector<Frame>& frames, std::uint8_t type) {
    std::vector<Frame> out;
    for (const Frame& f : frames)
        if (f.type == type) out.push_back(f);
    return out;
}

}  // namespace slipstream::http::h2::test
