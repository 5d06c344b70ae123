// Session: one SQLite connection with its statement cache, used by one worker thread at a time.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "base/status.h"
#include "store/db_result.h"
#include "store/value.h"

struct sqlite3;
struct sqlite3_stmt;

namespace slipstream::store::sqlite {

/// Synchronous statements on one connection: the blocking half of the driver, run only on a Database's worker
/// (never on an I/O thread). Prepared statements are cached by SQL text (kMaxCached at most). Not thread-safe:
/// the worker that owns it is its only user.
class Session {
  public:
    static constexpr std::size_t kMaxCached = 256;

    /// Takes ownership of an open connection.
    explicit Session(sqlite3* db) : db_(db) {}
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    /// Runs one statement with `params` bound to ?1..?n (or ?, :name, @name in order). Rows come as typed cells:
    /// INTEGER kInt (kBool in a column declared BOOL/BOOLEAN), REAL kFloat, TEXT kText (kJson in a column
    /// declared JSON), BLOB kBytes, NULL. Errors: the SQLite message and extended code (DbError::native_code),
    /// the error's 1-based position when SQLite knows it; a second statement in `sql` is refused.
    QueryResult query(std::string_view sql, const Params& params);
    /// query()'s rows written as a JSON array of objects (store/json_rows.h), straight from the statement.
    JsonResult fetch_json(std::string_view sql, const Params& params);
    /// Runs every statement of `script` (no parameters, no rows): schema set-up, PRAGMAs.
    [[nodiscard]] base::Status execute_script(const std::string& script);

    sqlite3* handle() const { return db_; }
    /// Keeps `owner` alive until the connection is closed (what the connection's hooks point to).
    void attach(std::shared_ptr<void> owner) { attached_ = std::move(owner); }

  private:
    // The prepared, bound statement, or an error result's status and details.
    // `*cached`: the statement stays in the cache (else the caller finalizes it after use).
    sqlite3_stmt* prepare(std::string_view sql, const Params& params, bool* cached, base::Status* status,
                          DbError* error);
    void describe_error(int rc, base::Status* status, DbError* error) const;
    void reset(sqlite3_stmt* stmt) const;

    sqlite3* db_;
    std::unordered_map<std::string, sqlite3_stmt*> cache_;
    std::shared_ptr<void> attached_;  // released after the connection closes (members go after ~Session's body)
};

/// The Status code of an SQLite extended result code: unique/primary key constraint kAlreadyExists, other
/// constraints and SQL errors kInvalidArgument, BUSY/LOCKED kUnavailable, FULL/NOMEM kResourceExhausted,
/// INTERRUPT kCancelled, IOERR/CANTOPEN kIoError, the rest kInternal.
base::Status status_for_sqlite(int extended_code, std::string message);

}  // namespace slipstream::store::sqlite
