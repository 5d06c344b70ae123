// H2Session as its connection's ProtocolSession: input, frames pulled under the output cap, timers, drain.
#include "base/log.h"
#include "server/h2/h2_session.h"

namespace slipstream::server {

namespace {
constexpr std::uint32_t kDrainIdleGraceMs = 100;
}  // namespace

void H2Session::on_read(std::string_view data, bool from_scratch) {
    base::Status s = receive(data);
    if (!from_scratch) connection_.input().clear();  // bytes kept before the switch (an h2c upgrade's read)
    if (!s.is_ok()) {
        // The session queued GOAWAY; stop reading, send it, close.
        worker_.metrics().parse_errors.with({s.is_resource_exhausted() ? "http2_flood" : "http2_protocol"}).inc();
        if (base::log_enabled(base::LogLevel::kDebug))
            base::log_message(base::LogLevel::kDebug, peer_.to_string() + ": " + s.message());
        connection_.set_reading(false);
    }
    note_input(data.size());
    pump();
    if (connection_.closed()) return;
    if (!connection_.refresh_write_timer(true)) refresh_timer(true);
    if (connection_.reading()) connection_.read_buffered_soon();
}

void H2Session::on_eof() {
    connection_.close();  // the client closed: its streams are cancelled
}

void H2Session::after_output() {
    if (connection_.closed()) return;
    pump();  // frames that waited for room in the output
    if (!connection_.closed() && !connection_.refresh_write_timer(false)) refresh_timer(false);
}

bool H2Session::idle() const {
    return !busy() && connection_.output().empty();
}

void H2Session::pump() {
    if (connection_.closed()) return;
    // Frames are pulled while the output is under its cap; a client that does not read stops the pull,
    // and reading with it, until the socket drains (writable -> after_output -> here).
    OutputQueue& out = connection_.output();
    const std::size_t cap = worker_.options().max_output_buffer;
    for (;;) {
        std::size_t pulled = pull(out, cap);
        if (out.empty()) break;
        connection_.flush();
        if (connection_.closed()) return;
        if (pulled == 0 || !out.empty()) break;
    }
    update_backlogs(out.size());  // flow control: frames left the session, or the socket took output
    if (done()) {
        if (!connection_.closing()) {
            connection_.set_closing();
            connection_.set_reading(false);
            connection_.flush();  // closes (or lingers) once the output is written
        }
        return;
    }
    if (!connection_.closing()) connection_.set_reading(out.size() < cap);
}

void H2Session::note_input(std::size_t n) {
    // While request bodies are awaited, the connection's input counts toward the body's minimum rate
    // (transfer_deadline.h): a body trickled inside the inactivity timeout cannot hold the connection for ever.
    if (!receiving()) {
        receiving_body_ = false;
        return;
    }
    BodyProgress& body = connection_.body_progress();
    const base::MonoNanos now = worker_.loop().now();
    if (!receiving_body_) {
        receiving_body_ = true;
        body.start = now;
        body.bytes = 0;
    }
    body.bytes += n;
    body.last = now;
}

void H2Session::refresh_timer(bool progressed) {
    const ServerOptions& o = worker_.options();
    const TimerReason reason = connection_.timer_reason();
    if (busy()) {
        connection_.stop_timer();  // handler timers run; a stalled reader is caught by the write timer
    } else if (receiving()) {
        if (!receiving_body_) {  // receiving since bytes that came before this refresh (the h2c upgrade's stream)
            receiving_body_ = true;
            BodyProgress& body = connection_.body_progress();
            body.start = body.last = worker_.loop().now();
            body.bytes = 0;
        }
        const bool armed = reason == TimerReason::kBody || reason == TimerReason::kBodyRate;
        if (!armed || progressed) connection_.arm_transfer(true);
    } else if (reason != TimerReason::kIdle || progressed) {
        connection_.arm(TimerReason::kIdle, connection_.draining() ? kDrainIdleGraceMs : o.keepalive_timeout_ms);
    }
}

void H2Session::on_timer(TimerReason reason) {
    if (reason != TimerReason::kIdle) {
        connection_.close();  // a request body stalled mid-way or fell below its minimum rate
        return;
    }
    connection_.stop_timer();
    shutdown();  // idle: GOAWAY(NO_ERROR), then close once it is written
    pump();
}

}  // namespace slipstream::server
