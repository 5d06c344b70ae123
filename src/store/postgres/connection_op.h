// Connection's internals shared by its files: one queued statement (Op) and the cancel link.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

#include "net/event_loop.h"
#include "store/postgres/connection.h"
#include "store/postgres/pg_params.h"
#include "store/postgres/pg_result.h"

namespace slipstream::store::postgres {

struct Connection::Op {
    Op(std::string s, const Params& p, QueryOptions o) : sql(std::move(s)), params(p), options(o) {}

    // kCopyIn: the server waits for COPY data; kCopyOut: it sends COPY data (the result follows either).
    enum class Phase : std::uint8_t { kQueued, kPreparing, kExecuting, kCopyIn, kCopyOut };

    StatementId id = 0;
    std::string sql;
    PgParams params;
    QueryOptions options;
    QueryCallback on_rows;  // exactly one of the three is set
    JsonCallback on_json;
    CopyCallback on_copy;
    CopySource copy_source;  // copy_in
    CopySink copy_sink;      // copy_out
    Phase phase = Phase::kQueued;
    std::string statement;         // the prepared statement's name (options.prepare)
    std::string cache_key;         // set while preparing a statement that joins the cache
    base::MonoNanos deadline = 0;  // when the timer acts on it next (0: no timeout)
    base::MonoNanos give_up = 0;   // cancelled: when the connection is closed if the statement still runs
    bool refused = false;          // failed before sending (status and error set): answered in its turn
    bool answered = false;         // the caller has heard (result, error or timeout); later results are dropped
    bool cancel_pending = false;   // cancelled behind others on a pipeline: cancel it on the server once oldest
    bool reprepared = false;       // run again after its cached statement went stale (at most once)
    base::Status status;           // the first error of this statement
    DbError error;
    ResultSet rows;
    std::string json;
    std::string copy_chunk;     // copy_in: the piece of data being handed to libpq
    std::size_t copy_sent = 0;  // how much of copy_chunk libpq has taken
    bool copy_seen = false;     // the server entered COPY mode for this statement
    bool copy_ended = false;    // copy_in: no more data (source done, failed, or abandoned): CopyDone/CopyFail next
    bool copy_waiting = false;  // the source / sink said copy_data_pending(); resume_copy() goes on
    std::uint64_t copied = 0;   // the row count of the COPY's command tag
};

// How a cancel request finishing on a worker reaches the connection: posted to its loop while it lives.
struct Connection::CancelLink {
    std::mutex mutex;
    net::EventLoop* loop = nullptr;  // null once the connection is gone (the loop may go soon after)
};

// What query() and fetch_json() say of a COPY statement, and what start_copy says of a COPY of the other kind.
inline constexpr const char* kCopyInRefused =
    "COPY ... FROM STDIN runs through Connection::copy_in, not query() or fetch_json()";
inline constexpr const char* kCopyOutRefused =
    "COPY ... TO STDOUT runs through Connection::copy_out, not query() or fetch_json()";

inline std::string millis(std::int64_t ns) {
    return std::to_string(ns / 1'000'000) + " ms";
}

}  // namespace slipstream::store::postgres
