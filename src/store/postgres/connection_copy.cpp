// Connection: COPY FROM STDIN and COPY TO STDOUT, streamed without blocking the loop.
#include <algorithm>

#include "store/postgres/connection_op.h"

namespace slipstream::store::postgres {

namespace {

// The largest CopyData message copy_in sends (a chunk is split into these).
constexpr std::size_t kCopyPiece = 256 * 1024;

constexpr const char* kCopyPipelineRefused =
    "COPY cannot run on a pipeline-mode connection (libpq allows no COPY in a pipeline): use a connection without "
    "pipeline mode for copy_in / copy_out";

}  // namespace

Connection::StatementId Connection::copy_in(std::string copy_sql, CopySource source, CopyCallback done,
                                            QueryOptions options) {
    options.prepare = false;
    auto op = std::make_unique<Op>(std::move(copy_sql), Params{}, options);
    op->on_copy = std::move(done);
    op->copy_source = std::move(source);
    return enqueue_copy(std::move(op), CopyDirection::kIn);
}
Connection::StatementId Connection::copy_out(std::string copy_sql, CopySink sink, CopyCallback done,
                                             QueryOptions options) {
    options.prepare = false;
    auto op = std::make_unique<Op>(std::move(copy_sql), Params{}, options);
    op->on_copy = std::move(done);
    op->copy_sink = std::move(sink);
    return enqueue_copy(std::move(op), CopyDirection::kOut);
}
Connection::StatementId Connection::enqueue_copy(std::unique_ptr<Op> op, CopyDirection want) {
    const bool in = want == CopyDirection::kIn;
    if (options_.pipeline) return refuse(std::move(op), kCopyPipelineRefused);
    if (in ? !op->copy_source : !op->copy_sink)
        return refuse(std::move(op), in ? "copy_in needs a source" : "copy_out needs a sink");
    if (copy_direction(op->sql) != want) {
        return refuse(std::move(op), in ? "copy_in runs COPY ... FROM STDIN statements only"
                                        : "copy_out runs COPY ... TO STDOUT statements only");
    }
    return enqueue(std::move(op));
}
// The server entered COPY mode for `op`. copy_in feeds it and copy_out drains it; any other statement refuses
// it: COPY FROM STDIN is ended at once with CopyFail, COPY TO STDOUT is read and dropped. False when the
// connection was closed instead (pipeline mode: the server would take the statements behind it as COPY data).
bool Connection::start_copy(Op& op, bool in) {
    if (options_.pipeline) {
        break_connection(kCopyPipelineRefused, true);
        return false;
    }
    op.copy_seen = true;
    op.phase = in ? Op::Phase::kCopyIn : Op::Phase::kCopyOut;
    const bool wanted = in ? static_cast<bool>(op.copy_source) : static_cast<bool>(op.copy_sink);
    if (!wanted && op.status.is_ok()) {
        op.error.message = in ? kCopyInRefused : kCopyOutRefused;
        if (op.on_copy) op.error.message = in ? "copy_out got a COPY FROM STDIN" : "copy_in got a COPY TO STDOUT";
        op.status = base::Status::invalid_argument(op.error.message);
    }
    if (in && !op.copy_source) op.copy_ended = true;
    return true;
}
// ~0.3-0.7 s for 1M rows of (int8, text, float8) through copy_rows_from, most of it the server's (copy_test).
// Hands libpq the source's data while the socket takes it. True once CopyDone/CopyFail went out (the result
// follows); false while waiting for the socket (EPOLLOUT armed), after yielding the turn, or when the
// connection broke or was destroyed by the source.
bool Connection::feed_copy_in(Op& op) {
    std::weak_ptr<bool> alive = alive_;
    std::size_t budget = kCopyBytesPerTurn;
    for (;;) {
        while (op.copy_sent < op.copy_chunk.size()) {
            const std::size_t n = std::min(op.copy_chunk.size() - op.copy_sent, kCopyPiece);
            const int r = PQputCopyData(conn_, op.copy_chunk.data() + op.copy_sent, static_cast<int>(n));
            if (r < 0) {
                break_connection(connection_message(conn_), true);
                return false;
            }
            if (r == 0) {
                set_events(EPOLLIN | EPOLLOUT);  // libpq could not take it now: again when the socket drains
                return false;
            }
            op.copy_sent += n;
        }
        // Nothing more is pulled while libpq holds unsent output: memory stays at about one chunk.
        const int f = PQflush(conn_);
        if (f < 0) {
            break_connection(connection_message(conn_), true);
            return false;
        }
        if (f == 1) {
            set_events(EPOLLIN | EPOLLOUT);
            return false;
        }
        if (op.copy_ended) {
            const char* fail = !op.status.is_ok() ? op.error.message.c_str()
                               : op.answered      ? "abandoned by the client (timed out or cancelled)"
                                                  : nullptr;
            const int r = PQputCopyEnd(conn_, fail);
            if (r < 0) {
                break_connection(connection_message(conn_), true);
                return false;
            }
            if (r == 0) {
                set_events(EPOLLIN | EPOLLOUT);
                return false;
            }
            op.phase = Op::Phase::kExecuting;
            op.copy_chunk = std::string();
            flush();
            return state_ == State::kReady;
        }
        if (budget == 0) {
            set_events(EPOLLIN | EPOLLOUT);  // the socket is writable: this resumes on the loop's next turn
            return false;
        }
        op.copy_chunk.clear();
        op.copy_sent = 0;
        if (op.answered) {
            op.copy_ended = true;  // timed out: the caller has heard; end the COPY instead of pulling more
            continue;
        }
        base::Status s = op.copy_source(op.copy_chunk);
        if (alive.expired() || state_ != State::kReady) return false;
        budget -= std::min(budget, op.copy_chunk.size());
        if (is_copy_data_pending(s)) {
            if (!op.copy_chunk.empty()) continue;  // this piece goes out; the next pull may find more
            op.copy_waiting = true;                // the producer's next piece comes through resume_copy()
            set_events(EPOLLIN);
            return false;
        }
        if (!s.is_ok()) {
            op.error.message = s.message();
            op.status = std::move(s);
            op.copy_chunk.clear();
            op.copy_ended = true;
        } else if (op.copy_chunk.empty()) {
            op.copy_ended = true;
        }
    }
}
void Connection::resume_copy(StatementId id) {
    if (state_ != State::kReady || in_flight_ == 0) return;
    Op& op = *ops_.front();
    if (op.id != id || !op.copy_waiting) return;
    if (op.phase != Op::Phase::kCopyIn && op.phase != Op::Phase::kCopyOut) return;
    op.copy_waiting = false;
    if (op.phase == Op::Phase::kCopyOut) set_events(EPOLLIN);
    read_results();
}
// Hands each CopyData message that has arrived to the sink. True once the data has ended (the result follows);
// false while waiting for input (EPOLLIN is armed), or when the connection broke or was destroyed by the sink.
bool Connection::drain_copy_out(Op& op) {
    if (op.copy_waiting) return false;  // the sink is full: resume_copy() reads on
    std::weak_ptr<bool> alive = alive_;
    for (;;) {
        char* buf = nullptr;
        const int n = PQgetCopyData(conn_, &buf, /*async=*/1);
        if (n == 0) return false;
        if (n == -1) {
            op.phase = Op::Phase::kExecuting;
            return true;
        }
        if (n < 0) {
            break_connection(connection_message(conn_), true);
            return false;
        }
        std::unique_ptr<char, void (*)(void*)> owned(buf, PQfreemem);
        if (!op.copy_sink || op.answered || !op.status.is_ok()) continue;  // refused, failed or abandoned: dropped
        base::Status s = op.copy_sink(std::string_view(buf, static_cast<std::size_t>(n)));
        if (alive.expired() || state_ != State::kReady) return false;
        if (is_copy_data_pending(s)) {
            // The sink kept this message and holds enough: stop reading the socket, so that the server waits
            // (back-pressure) with at most libpq's buffer and the socket's in between, until resume_copy().
            op.copy_waiting = true;
            set_events(0);
            return false;
        }
        if (!s.is_ok()) {
            op.error.message = s.message();
            op.status = std::move(s);
        }
    }
}

}  // namespace slipstream::store::postgres
