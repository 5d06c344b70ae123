// PostgreSQL results to the store's shapes: ResultSet, JSON rows, DbError.
#include "store/postgres/pg_result.h"

#include <charconv>
#include <cstdlib>
#include <optional>
#include <vector>

#include "json/writer.h"
#include "store/json_rows.h"
#include "store/postgres/pg_array.h"

namespace slipstream::store::postgres {

ColumnType column_type_for_oid(Oid oid) {
    // Built-in OIDs from the server's pg_type.dat; stable across versions.
    switch (oid) {
        case 16:
            return ColumnType::kBool;
        case 17:
            return ColumnType::kBytes;
        case 20:  // int8
        case 21:  // int2
        case 23:  // int4
        case 26:  // oid
            return ColumnType::kInt;
        case 700:
        case 701:
            return ColumnType::kFloat;
        case 1700:
            return ColumnType::kNumeric;
        case 2950:
            return ColumnType::kUuid;
        case 1082:
            return ColumnType::kDate;
        case 1083:  // time
        case 1266:  // timetz
            return ColumnType::kTime;
        case 1114:
            return ColumnType::kTimestamp;
        case 1184:
            return ColumnType::kTimestampTz;
        case 1186:
            return ColumnType::kInterval;
        case 114:   // json
        case 3802:  // jsonb
            return ColumnType::kJson;
        default:
            return ColumnType::kText;  // text, varchar, bpchar, name, and every other type's text output
    }
}

namespace {

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::string_view cell(const PGresult* r, int row, int col) {
    return {PQgetvalue(r, row, col), static_cast<std::size_t>(PQgetlength(r, row, col))};
}

}  // namespace

bool decode_bytea(std::string_view text, std::string& out) {
    // The hex form directly, anything else (bytea_output = 'escape') through libpq.
    std::size_t mark = out.size();
    if (decode_bytea_hex(text, out)) return true;
    out.resize(mark);
    std::string copy(text);
    std::size_t len = 0;
    unsigned char* raw = PQunescapeBytea(reinterpret_cast<const unsigned char*>(copy.c_str()), &len);
    if (raw == nullptr) return false;
    out.append(reinterpret_cast<const char*>(raw), len);
    PQfreemem(raw);
    return true;
}

bool decode_bytea_hex(std::string_view text, std::string& out) {
    // bytea_output = 'hex' is the default since PostgreSQL 9.0; decode_bytea() falls back for 'escape'.
    if (text.size() < 2 || text[0] != '\\' || text[1] != 'x' || text.size() % 2 != 0) return false;
    out.reserve(out.size() + (text.size() - 2) / 2);
    for (std::size_t i = 2; i < text.size(); i += 2) {
        int hi = hex_digit(text[i]);
        int lo = hex_digit(text[i + 1]);
        if (hi < 0 || lo < 0) return false;
        out.push_back(static_cast<char>((hi << 4) | lo));
    }
    return true;
}

ResultSet to_result_set(const PGresult* r) {
    ResultSet rs;
    const int cols = PQnfields(r);
    const int rows = PQntuples(r);
    std::vector<ColumnType> types(static_cast<std::size_t>(cols));
    for (int c = 0; c < cols; ++c) {
        Oid oid = PQftype(r, c);
        std::optional<ColumnType> element = array_element_type(oid);
        types[c] = element ? ColumnType::kArray : column_type_for_oid(oid);
        rs.add_column(PQfname(r, c), types[c], oid, element.value_or(ColumnType::kNull));
    }
    std::size_t bytes = 0;
    for (int row = 0; row < rows; ++row) {
        for (int c = 0; c < cols; ++c)
            bytes += static_cast<std::size_t>(PQgetlength(r, row, c));
    }
    rs.reserve(static_cast<std::size_t>(rows), bytes);
    for (int row = 0; row < rows; ++row) {
        for (int c = 0; c < cols; ++c) {
            if (PQgetisnull(r, row, c)) {
                rs.append_null();
            } else if (types[c] == ColumnType::kBytes) {
                std::string& out = rs.begin_cell(ColumnType::kBytes);
                std::size_t mark = out.size();
                if (!decode_bytea(cell(r, row, c), out)) out.resize(mark);  // only when out of memory
                rs.end_cell();
            } else if (types[c] == ColumnType::kArray) {
                std::string& out = rs.begin_cell(ColumnType::kArray);
                std::size_t mark = out.size();
                if (parse_array_literal(cell(r, row, c), rs.columns()[c].element, out).is_ok()) {
                    rs.end_cell();
                } else {  // not what the server prints: kept as its text
                    out.resize(mark);
                    out.append(cell(r, row, c));
                    rs.end_cell(ColumnType::kText);
                }
            } else {
                rs.append_cell(types[c], cell(r, row, c));
            }
        }
    }
    const char* tuples = PQcmdTuples(const_cast<PGresult*>(r));
    std::int64_t affected = 0;
    std::from_chars(tuples, tuples + std::char_traits<char>::length(tuples), affected);
    rs.set_affected_rows(affected);
    rs.set_command(PQcmdStatus(const_cast<PGresult*>(r)));
    return rs;
}

base::Status append_rows_json(const PGresult* r, std::string& out) {
    const int cols = PQnfields(r);
    const int rows = PQntuples(r);
    std::vector<ColumnType> types(static_cast<std::size_t>(cols));
    std::vector<std::optional<ColumnType>> elements(static_cast<std::size_t>(cols));  // set for arrays
    std::vector<std::string_view> names(static_cast<std::size_t>(cols));
    for (int c = 0; c < cols; ++c) {
        types[c] = column_type_for_oid(PQftype(r, c));
        elements[c] = array_element_type(PQftype(r, c));
        names[c] = PQfname(r, c);
    }
    json::Writer w(out);
    std::string bytes;
    w.begin_array();
    for (int row = 0; row < rows; ++row) {
        w.begin_object();
        for (int c = 0; c < cols; ++c) {
            w.key(names[c]);
            if (PQgetisnull(r, row, c)) {
                w.null();
                continue;
            }
            std::string_view text = cell(r, row, c);
            if (elements[c]) {
                SLIPSTREAM_RETURN_IF_ERROR(write_array_json(w, text, *elements[c]));
                continue;
            }
            if (types[c] == ColumnType::kBytes) {
                bytes.clear();
                if (!decode_bytea(text, bytes)) return base::Status::invalid_argument("malformed bytea output");
                text = bytes;
            }
            SLIPSTREAM_RETURN_IF_ERROR(write_cell_json(w, types[c], text));
        }
        w.end_object();
    }
    w.end_array();
    return base::Status::ok();
}

DbError to_db_error(const PGresult* r) {
    auto field = [r](int code) {
        const char* v = PQresultErrorField(r, code);
        return v == nullptr ? std::string() : std::string(v);
    };
    DbError e;
    e.sqlstate = field(PG_DIAG_SQLSTATE);
    e.message = field(PG_DIAG_MESSAGE_PRIMARY);
    e.detail = field(PG_DIAG_MESSAGE_DETAIL);
    e.hint = field(PG_DIAG_MESSAGE_HINT);
    std::string pos = field(PG_DIAG_STATEMENT_POSITION);
    if (!pos.empty()) e.position = std::atoi(pos.c_str());
    if (e.message.empty()) {
        // A client-side failure reported as a result (lost connection, out of memory): libpq's own text.
        e.message = PQresultErrorMessage(r);
        while (!e.message.empty() && (e.message.back() == '\n' || e.message.back() == ' '))
            e.message.pop_back();
    }
    return e;
}

std::string connection_message(const PGconn* conn) {
    std::string m = PQerrorMessage(conn);
    while (!m.empty() && (m.back() == '\n' || m.back() == ' '))
        m.pop_back();
    return m;
}

}  // namespace slipstream::store::postgres
