// Fuzz target: arbitrary bytes into a server session (after a valid preface half the time); answers every request,
// holds some reset streams as if their handlers ran on, and checks for stalled streams between the two halves.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "http/h2/session.h"

namespace {

using slipstream::http::h2::HeaderField;
using slipstream::http::h2::kClientPreface;
using slipstream::http::h2::RequestHead;
using slipstream::http::h2::ServerSession;
using slipstream::http::h2::SessionHandler;
using slipstream::http::h2::StreamId;

struct Answerer final : SessionHandler {
    ServerSession* session = nullptr;
    void on_request(StreamId id, const RequestHead& request) override {
        HeaderField h{"content-type", "text/plain"};
        if (request.path.size() % 2 == 0) {
            session->respond(id, 200, {&h, 1}, std::string(request.path)).ignore_error();
        } else {
            session->start_stream(id, 200, {&h, 1}).ignore_error();
            session->write(id, request.body).ignore_error();
        }
    }
    void on_stream_reset(StreamId id) override {
        if (id % 4 == 1) session->set_held_streams(++held);  // its handler runs on
    }
    std::size_t held = 0;
    // Tunnels (extended CONNECT): echo the bytes back and return them to the windows; end with the client.
    void on_stream_data(StreamId id, std::string_view data) override {
        session->write(id, data).ignore_error();
        session->consume(id, data.size());
    }
    void on_stream_end(StreamId id) override { session->end(id).ignore_error(); }
    void on_stream_closed(StreamId) override {}
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    Answerer answerer;
    slipstream::http::h2::SessionConfig config;
    config.control_burst = 50;
    auto s = ServerSession::create(config, answerer);
    if (!s.is_ok()) return 0;
    answerer.session = s->get();
    std::string input;
    if (size > 0 && (data[0] & 1)) input.append(kClientPreface);
    input.append(reinterpret_cast<const char*>(data), size);
    std::string out;
    // Feed in two pieces so partial frames are exercised too.
    std::size_t half = input.size() / 2;
    slipstream::base::MonoNanos now = 1'000'000'000;
    if ((*s)->receive(std::string_view(input).substr(0, half), now).is_ok()) {
        (*s)->send(out, 1 << 20);
        (void)(*s)->reset_stalled();
        (void)(*s)->reset_stalled();
        (*s)->send(out, 1 << 20);
        (void)(*s)->receive(std::string_view(input).substr(half), now);
    }
    (*s)->send(out, 1 << 20);
    return 0;
}
