// NativeDatabase: store::Database for Python: answers through a completion queue + eventfd, or blocking calls.
#pragma once

#include <Python.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "copy_records.h"
#include "py_ref.h"
#include "store/database/database.h"

namespace nanobind {
class module_;
}

namespace slipstream::python {

class NativeApp;
struct DbCore;

/// The Python package's handle on one store::Database (`_native.NativeDatabase`). Made closed; open() starts the
/// database, close() stops it (and a later open() starts it again). Methods are called with the GIL held.
///
/// Asynchronous calls take a token and return at once; the answer arrives as (token, ok, payload) from drain()
/// once event_fd() is readable. The database's thread never takes the GIL: its callbacks push the raw result
/// into a mutex-guarded queue and write the eventfd once per batch; drain() converts to Python objects.
/// Payloads (ok): a query (columns, rows, affected, command) as db_values.h builds it; fetch_json bytes; copy_in
/// the row count;
/// open_session an int session id; a notification (channel, payload, pid). Errors: error_payload().
///
/// Blocking calls (`*_blocking`, for `def` handlers) release the GIL and wait on a condition variable for the
/// answer; they return (ok, payload) the same way.
class NativeDatabase {
  public:
    /// Checks the URL and the limits now (std::invalid_argument); opens nothing.
    explicit NativeDatabase(store::DatabaseConfig config);
    ~NativeDatabase();
    NativeDatabase(const NativeDatabase&) = delete;
    NativeDatabase& operator=(const NativeDatabase&) = delete;

    /// Starts the database (SQLite opens its file here, blocking; PostgreSQL connects in the background).
    /// Returns None, or an error payload (a file SQLite cannot open). Already open: None.
    PyObject* open();
    /// Closes the sessions, then stops the database (what is in flight is answered kCancelled). Releases the GIL.
    void close();
    bool is_open() const;
    bool ready() const;
    /// "postgresql" or "sqlite".
    const char* backend() const;
    int event_fd() const;
    /// Every answer since the last drain, as a list of (token, ok, payload). New reference; nullptr on error.
    PyObject* drain();

    // Asynchronous (answered through drain()); a closed database answers at once with a "cancelled" error.
    void query(std::uint64_t token, std::string sql, PyObject* params, std::int64_t timeout_ns);
    void fetch_json(std::uint64_t token, std::string sql, PyObject* params, std::int64_t timeout_ns);
    void open_session(std::uint64_t token);
    void session_query(std::uint64_t sid, std::uint64_t token, std::string sql, PyObject* params,
                       std::int64_t timeout_ns);
    void session_fetch_json(std::uint64_t sid, std::uint64_t token, std::string sql, PyObject* params,
                            std::int64_t timeout_ns);
    /// PostgreSQL `COPY ... FROM STDIN` of `data` (in the statement's format: encode_copy_records makes COPY text)
    /// through the pool: the payload is the row count. SQLite answers an "invalid_argument" error.
    void copy_in(std::uint64_t token, std::string copy_sql, std::string data, std::int64_t timeout_ns);
    /// Cancels the query / fetch_json / copy_in answering under `token` (store::QueryCancel: its answer, a
    /// "cancelled" error unless it was answered first, still comes through drain()). Unknown or answered tokens,
    /// and session statements, are ignored. Does not block.
    void cancel(std::uint64_t token);
    /// Notifications of this session's LISTENs arrive as (token, True, (channel, payload, pid)), until the
    /// session closes. Call before sending LISTEN.
    void session_listen(std::uint64_t sid, std::uint64_t token);
    /// Gives the session's connection back (a transaction left open is rolled back). Unknown ids are ignored.
    void close_session(std::uint64_t sid);
    /// PostgreSQL `COPY ... FROM STDIN` of `data` (encoded as copy_in's) on the session's connection (inside its
    /// transaction): the row count.
    void session_copy_in(std::uint64_t sid, std::uint64_t token, std::string copy_sql, std::string data,
                         std::int64_t timeout_ns);
    /// PostgreSQL `COPY ... FROM STDIN` through the pool (`sid` 0) or on session `sid`, its data encoded from Python
    /// records while it runs
    /// (store::CopyStream, at most `limit_bytes` waiting): `records` (a list or tuple, or an iterator) encoded by a
    /// CopyRecordsEncoder (copy_records.h: COPY text when `oids` is empty, else binary; `names` for messages) as
    /// copy_stream_records(token) is called, then copy_stream_end(token, None) (or an error text, which aborts the
    /// COPY); `token` hears the row count. The Python thread only.
    void copy_in_stream(std::uint64_t token, std::uint64_t sid, std::string copy_sql, std::int64_t timeout_ns,
                        PyObject* records, Py_ssize_t width, PyObject* columns, PyObject* by_name_types,
                        std::vector<std::uint32_t> oids, std::vector<std::string> names, bool strict,
                        std::size_t limit_bytes);
    /// Encodes and pushes records until they end (1: the data is complete), the stream is full (0: wait with
    /// copy_stream_wait, then call again) or a value does not fit the binary form (-1, not strict: abort with
    /// copy_stream_end and send COPY text instead). A Python error (naming the record) is thrown as one.
    int copy_stream_records(std::uint64_t token);
    /// `wait_token` hears None once the stream has room again (or the COPY ended: its token answers first).
    void copy_stream_wait(std::uint64_t token, std::uint64_t wait_token);
    void copy_stream_end(std::uint64_t token, const std::string* error);
    /// PostgreSQL `COPY ... TO STDOUT` through the pool / on a session: the payload is (row count, data bytes),
    /// the data gathered on the database's thread. SQLite answers an "invalid_argument" error.
    void copy_out(std::uint64_t token, std::string copy_sql, std::int64_t timeout_ns);
    void session_copy_out(std::uint64_t sid, std::uint64_t token, std::string copy_sql, std::int64_t timeout_ns);
    /// PostgreSQL `COPY ... TO STDOUT` through the pool (`sid` 0) or on session `sid`, streamed: the data waits in
    /// a store::CopyOutStream (at most about `limit_bytes`; past it the connection stops reading, so the server
    /// waits) until copy_out_take(token) takes it; `token` hears the row count once the data ended.
    void copy_out_stream(std::uint64_t token, std::uint64_t sid, std::string copy_sql, std::int64_t timeout_ns,
                         std::size_t limit_bytes);
    /// Up to about `max_bytes` of the data that waits (whole messages, at least one), as bytes; None when nothing
    /// waits. New reference.
    PyObject* copy_out_take(std::uint64_t token, std::size_t max_bytes);
    /// `wait_token` hears None once data waits or the data ended (at once when so now, or the stream is gone).
    void copy_out_wait(std::uint64_t token, std::uint64_t wait_token);
    /// The consumer is done (or gives up): what waits is dropped, the connection reads and drops the rest (cancel
    /// `token` to stop the server too). Unknown tokens are ignored.
    void copy_out_close(std::uint64_t token);
    /// A store::DbListener: `token` hears its id (an int), `events` every notification (channel, payload, pid)
    /// and every change of its connection ("connection_lost", why) / ("reconnected", "") until it closes.
    void open_listener(std::uint64_t token, std::uint64_t events);
    /// LISTEN (`listen`) or UNLISTEN `channel` on listener `lid`: None, or the error.
    void listener_listen(std::uint64_t lid, std::uint64_t token, std::string channel, bool listen);
    bool listener_connected(std::uint64_t lid) const;
    /// Ends the listener's LISTENs and closes its connection. Unknown ids are ignored.
    void close_listener(std::uint64_t lid);

    // Blocking: (ok, payload).
    PyObject* query_blocking(std::string sql, PyObject* params, std::int64_t timeout_ns);
    PyObject* fetch_json_blocking(std::string sql, PyObject* params, std::int64_t timeout_ns);
    PyObject* copy_in_blocking(std::string copy_sql, std::string data, std::int64_t timeout_ns);
    PyObject* session_copy_in_blocking(std::uint64_t sid, std::string copy_sql, std::string data,
                                       std::int64_t timeout_ns);
    /// COPY ... TO STDOUT through the pool (`sid` 0) or on session `sid`: (ok, (row count, data bytes)).
    PyObject* copy_out_blocking(std::uint64_t sid, std::string copy_sql, std::int64_t timeout_ns);
    /// COPY ... TO STDOUT through the pool (`sid` 0) or on session `sid`, each chunk (bytes, whole messages, up to
    /// 256 KiB) handed to `write` as it arrives, the GIL released while waiting; at most about `limit_bytes` wait
    /// (then the connection stops reading). (ok, row count); nullptr with `write`'s exception set when it raised
    /// (the COPY was cancelled and has ended).
    PyObject* copy_out_to_blocking(std::uint64_t sid, std::string copy_sql, std::int64_t timeout_ns,
                                   std::size_t limit_bytes, PyObject* write);
    PyObject* open_session_blocking();
    PyObject* session_query_blocking(std::uint64_t sid, std::string sql, PyObject* params, std::int64_t timeout_ns);
    PyObject* session_fetch_json_blocking(std::uint64_t sid, std::string sql, PyObject* params,
                                          std::int64_t timeout_ns);

    const std::shared_ptr<DbCore>& core() const { return core_; }

  private:
    std::shared_ptr<DbCore> core_;
    struct CopyIn;
    std::unordered_map<std::uint64_t, std::unique_ptr<CopyIn>> copy_streams_;             // the Python thread only
    std::unordered_map<std::uint64_t, std::shared_ptr<store::CopyOutStream>> copy_outs_;  // the same
};

/// A COPY FROM STDIN fed from Python records: its stream, encoder and the Python objects the encoder reads.
struct NativeDatabase::CopyIn {
    std::shared_ptr<store::CopyStream> stream;
    PyRef records;  // a list or tuple, or an iterator
    PyRef columns;
    PyRef by_name_types;
    CopyRecordsEncoder encoder;
};

/// Registers `db`'s readiness as a check of `app`'s /readyz under `name`: a C++ function over the database (no
/// Python, no GIL), run on an I/O thread; false while the database is closed or unreachable. Before start only.
void add_database_readiness_check(NativeApp& app, const std::string& name, NativeDatabase& db);

/// Registers NativeDatabase and add_database_readiness_check on the extension module.
void register_database(nanobind::module_& m);

}  // namespace slipstream::python
