// Session: statement cache, binding, stepping into a ResultSet or JSON, error mapping.
#include "store/sqlite/session.h"

#include <sqlite3.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "json/format_double.h"
#include "json/writer.h"
#include "store/json_rows.h"

namespace slipstream::store::sqlite {

namespace {

bool declared_as(const char* decl, const char* word) {
    if (decl == nullptr) return false;
    std::string upper(decl);
    for (char& c : upper)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return upper.find(word) != std::string::npos;
}

// The declared kinds that change how a stored value reads: BOOL(EAN) integers and JSON text.
struct Declared {
    bool boolean = false;
    bool json = false;
};

Declared declared(sqlite3_stmt* stmt, int col) {
    const char* decl = sqlite3_column_decltype(stmt, col);
    return {declared_as(decl, "BOOL"), declared_as(decl, "JSON")};
}

ColumnType column_kind(sqlite3_stmt* stmt, int col) {
    const char* decl = sqlite3_column_decltype(stmt, col);
    if (decl == nullptr) return ColumnType::kNull;  // an expression: only its cells have kinds
    if (declared_as(decl, "BOOL")) return ColumnType::kBool;
    if (declared_as(decl, "JSON")) return ColumnType::kJson;
    if (declared_as(decl, "INT")) return ColumnType::kInt;
    if (declared_as(decl, "CHAR") || declared_as(decl, "CLOB") || declared_as(decl, "TEXT")) return ColumnType::kText;
    if (declared_as(decl, "BLOB")) return ColumnType::kBytes;
    if (declared_as(decl, "REAL") || declared_as(decl, "FLOA") || declared_as(decl, "DOUB")) return ColumnType::kFloat;
    return ColumnType::kNumeric;
}

// Appends the cell's canonical text (column_type.h) to `out` and returns its kind.
ColumnType append_cell(sqlite3_stmt* stmt, int col, Declared decl, std::string& out) {
    switch (sqlite3_column_type(stmt, col)) {
        case SQLITE_INTEGER: {
            sqlite3_int64 v = sqlite3_column_int64(stmt, col);
            if (decl.boolean) {
                out.push_back(v != 0 ? 't' : 'f');
                return ColumnType::kBool;
            }
            char buf[24];
            auto [end, ec] = std::to_chars(buf, buf + sizeof buf, static_cast<std::int64_t>(v));
            out.append(buf, end);
            return ColumnType::kInt;
        }
        case SQLITE_FLOAT: {
            double d = sqlite3_column_double(stmt, col);
            if (std::isinf(d)) {
                out += d > 0 ? "Infinity" : "-Infinity";
            } else {
                char buf[json::kMaxDoubleChars];
                out.append(buf, json::format_double(d, buf));
            }
            return ColumnType::kFloat;
        }
        case SQLITE_TEXT: {
            const char* t = reinterpret_cast<const char*>(sqlite3_column_text(stmt, col));
            out.append(t, static_cast<std::size_t>(sqlite3_column_bytes(stmt, col)));
            return decl.json ? ColumnType::kJson : ColumnType::kText;
        }
        case SQLITE_BLOB: {
            const void* b = sqlite3_column_blob(stmt, col);
            out.append(static_cast<const char*>(b), static_cast<std::size_t>(sqlite3_column_bytes(stmt, col)));
            return ColumnType::kBytes;
        }
        default:
            return ColumnType::kNull;
    }
}

int bind(sqlite3_stmt* stmt, int index, const Value& value) {
    return std::visit(
        [&](const auto& v) -> int {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::monostate>) {
                return sqlite3_bind_null(stmt, index);
            } else if constexpr (std::is_same_v<T, bool>) {
                return sqlite3_bind_int(stmt, index, v ? 1 : 0);
            } else if constexpr (std::is_same_v<T, std::int64_t>) {
                return sqlite3_bind_int64(stmt, index, v);
            } else if constexpr (std::is_same_v<T, double>) {
                return sqlite3_bind_double(stmt, index, v);
            } else if constexpr (std::is_same_v<T, std::string>) {
                // SQLITE_STATIC: the parameters outlive the statement's use (reset before returning).
                return sqlite3_bind_text64(stmt, index, v.data(), v.size(), SQLITE_STATIC, SQLITE_UTF8);
            } else {
                return sqlite3_bind_blob64(stmt, index, v.data.data(), v.data.size(), SQLITE_STATIC);
            }
        },
        value);
}

}  // namespace

base::Status status_for_sqlite(int code, std::string message) {
    using base::Status;
    if (code == SQLITE_CONSTRAINT_UNIQUE || code == SQLITE_CONSTRAINT_PRIMARYKEY) {
        return Status::already_exists(std::move(message));
    }
    switch (code & 0xff) {
        case SQLITE_CONSTRAINT:
        case SQLITE_ERROR:
        case SQLITE_MISMATCH:
        case SQLITE_RANGE:
        case SQLITE_TOOBIG:
            return Status::invalid_argument(std::move(message));
        case SQLITE_BUSY:
        case SQLITE_LOCKED:
            return Status::unavailable(std::move(message));
        case SQLITE_FULL:
        case SQLITE_NOMEM:
            return Status::resource_exhausted(std::move(message));
        case SQLITE_INTERRUPT:
            return Status::cancelled(std::move(message));
        case SQLITE_IOERR:
        case SQLITE_CANTOPEN:
            return Status::io_error(std::move(message));
        default:
            return Status::internal(std::move(message));
    }
}

Session::~Session() {
    for (auto& [sql, stmt] : cache_)
        sqlite3_finalize(stmt);
    sqlite3_close_v2(db_);
}

void Session::describe_error(int rc, base::Status* status, DbError* error) const {
    (void)rc;
    error->native_code = sqlite3_extended_errcode(db_);
    error->message = sqlite3_errmsg(db_);
    int offset = sqlite3_error_offset(db_);
    error->position = offset >= 0 ? offset + 1 : 0;
    *status = status_for_sqlite(error->native_code, error->message);
}

void Session::reset(sqlite3_stmt* stmt) const {
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
}

sqlite3_stmt* Session::prepare(std::string_view sql, const Params& params, bool* cached, base::Status* status,
                               DbError* error) {
    std::string key(sql);
    sqlite3_stmt* stmt = nullptr;
    auto it = cache_.find(key);
    *cached = it != cache_.end();
    if (*cached) {
        stmt = it->second;
    } else {
        const char* tail = nullptr;
        int rc =
            sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt, &tail);
        if (rc != SQLITE_OK) {
            describe_error(rc, status, error);
            return nullptr;
        }
        if (stmt == nullptr) {
            error->message = "empty statement";
            *status = base::Status::invalid_argument(error->message);
            return nullptr;
        }
        std::string_view rest(tail, static_cast<std::size_t>(sql.data() + sql.size() - tail));
        if (rest.find_first_not_of(" \t\r\n;") != std::string_view::npos) {
            sqlite3_finalize(stmt);
            error->message = "one statement per query (use execute_script for several)";
            error->position = static_cast<int>(tail - sql.data()) + 1;
            *status = base::Status::invalid_argument(error->message);
            return nullptr;
        }
        if (cache_.size() < kMaxCached) {
            cache_.emplace(std::move(key), stmt);
            *cached = true;
        }
    }
    const int expected = sqlite3_bind_parameter_count(stmt);
    int rc = SQLITE_OK;
    if (expected != static_cast<int>(params.size())) {
        error->message = "the statement takes " + std::to_string(expected) + " parameters, " +
                         std::to_string(params.size()) + " given";
        *status = base::Status::invalid_argument(error->message);
    } else {
        for (std::size_t i = 0; i < params.size() && rc == SQLITE_OK; ++i) {
            rc = bind(stmt, static_cast<int>(i) + 1, params[i]);
        }
        if (rc == SQLITE_OK) return stmt;
        describe_error(rc, status, error);
    }
    reset(stmt);
    if (!*cached) sqlite3_finalize(stmt);
    return nullptr;
}

QueryResult Session::query(std::string_view sql, const Params& params) {
    base::Status status;
    DbError error;
    bool cached = false;
    sqlite3_stmt* stmt = prepare(sql, params, &cached, &status, &error);
    if (stmt == nullptr) return QueryResult(std::move(status), std::move(error));
    ResultSet rs;
    const int cols = sqlite3_column_count(stmt);
    std::vector<Declared> decls(static_cast<std::size_t>(cols));
    for (int c = 0; c < cols; ++c) {
        rs.add_column(sqlite3_column_name(stmt, c), column_kind(stmt, c));
        decls[c] = declared(stmt, c);
    }
    int rc;
    std::int64_t rows = 0;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        ++rows;
        for (int c = 0; c < cols; ++c) {
            if (sqlite3_column_type(stmt, c) == SQLITE_NULL) {
                rs.append_null();
                continue;
            }
            std::string& out = rs.begin_cell(ColumnType::kText);
            ColumnType kind = append_cell(stmt, c, decls[c], out);
            rs.end_cell(kind);
        }
    }
    if (rc != SQLITE_DONE) describe_error(rc, &status, &error);
    rs.set_affected_rows(sqlite3_stmt_readonly(stmt) ? rows : sqlite3_changes64(db_));
    reset(stmt);
    if (!cached) sqlite3_finalize(stmt);
    if (!status.is_ok()) return QueryResult(std::move(status), std::move(error));
    return QueryResult(std::move(rs));
}

JsonResult Session::fetch_json(std::string_view sql, const Params& params) {
    base::Status status;
    DbError error;
    bool cached = false;
    sqlite3_stmt* stmt = prepare(sql, params, &cached, &status, &error);
    if (stmt == nullptr) return JsonResult(std::move(status), std::move(error));
    const int cols = sqlite3_column_count(stmt);
    std::vector<Declared> decls(static_cast<std::size_t>(cols));
    std::vector<std::string> names(static_cast<std::size_t>(cols));
    for (int c = 0; c < cols; ++c) {
        decls[c] = declared(stmt, c);
        names[c] = sqlite3_column_name(stmt, c);
    }
    std::string out;
    json::Writer w(out);
    std::string cell;
    w.begin_array();
    int rc = SQLITE_DONE;
    while (status.is_ok() && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        w.begin_object();
        for (int c = 0; c < cols && status.is_ok(); ++c) {
            w.key(names[c]);
            cell.clear();
            ColumnType kind = append_cell(stmt, c, decls[c], cell);
            status = write_cell_json(w, kind, cell);
        }
        w.end_object();
    }
    if (status.is_ok() && rc != SQLITE_DONE) describe_error(rc, &status, &error);
    w.end_array();
    reset(stmt);
    if (!cached) sqlite3_finalize(stmt);
    if (!status.is_ok()) return JsonResult(std::move(status), std::move(error));
    return JsonResult(std::move(out));
}

base::Status Session::execute_script(const std::string& script) {
    char* err = nullptr;
    int rc = sqlite3_exec(db_, script.c_str(), nullptr, nullptr, &err);
    if (rc == SQLITE_OK) return base::Status::ok();
    std::string message = err != nullptr ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    return status_for_sqlite(sqlite3_extended_errcode(db_), std::move(message));
}

}  // namespace slipstream::store::sqlite
