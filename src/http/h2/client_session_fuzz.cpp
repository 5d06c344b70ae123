// Fuzz target: arbitrary server bytes into a client session with three streams open (a GET, a POST with a body,
// one reset by us); consumes half of what each stream receives, resets one from inside a callback.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "http/h2/client_session.h"

namespace {

using slipstream::http::h2::ClientRequest;
using slipstream::http::h2::ClientSession;
using slipstream::http::h2::ClientSessionHandler;
using slipstream::http::h2::ClientStreamError;
using slipstream::http::h2::ErrorCode;
using slipstream::http::h2::HeaderField;

struct Sink final : ClientSessionHandler {
    ClientSession* session = nullptr;
    void on_response_head(std::uint32_t id, int, std::span<const HeaderField>) override {
        if (id == 5) session->reset(id);
    }
    void on_response_data(std::uint32_t id, std::string_view data) override { session->consume(id, data.size() / 2); }
    void on_response_end(std::uint32_t) override {}
    void on_stream_error(std::uint32_t, const ClientStreamError&) override {}
    void on_goaway(std::uint32_t, ErrorCode) override {}
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    Sink sink;
    slipstream::http::h2::ClientSessionConfig config;
    config.max_queued_control_frames = 50;
    ClientSession session(config, sink);
    sink.session = &session;
    HeaderField accept{"Accept", "text/event-stream"};
    for (int i = 0; i < 4; ++i) {
        ClientRequest r{.method = i == 1 ? "POST" : "GET",
                        .scheme = "https",
                        .authority = "example.com",
                        .path = "/v1/chat/completions",
                        .headers = {&accept, 1},
                        .body = i == 1 ? std::string(70'000, 'x') : std::string()};
        (void)session.submit(r);
    }
    session.reset(7);
    std::string out;
    std::string_view input(reinterpret_cast<const char*>(data), size);
    const std::size_t half = input.size() / 2;
    if (session.receive(input.substr(0, half)).is_ok()) {
        session.send(out, 1 << 20);
        (void)session.receive(input.substr(half));
    }
    session.send(out, 1 << 20);
    return 0;
}
