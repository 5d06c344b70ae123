// ColumnType: the closed set of value kinds a store result carries, shared by the PostgreSQL and SQLite drivers.
#pragma once

#include <cstdint>
#include <string_view>

namespace slipstream::store {

/// How a cell's bytes are to be read. Cells are kept as text (bytes for kBytes) in the server's canonical form:
/// kBool "t"/"f", kInt decimal digits, kFloat shortest round-trip text (PostgreSQL also "NaN", "Infinity",
/// "-Infinity"), kNumeric exact decimal text, kJson JSON text, date/time as the server prints them
/// (PostgreSQL with DateStyle ISO: "2024-01-02 03:04:05+00").
enum class ColumnType : std::uint8_t {
    kNull,  // a NULL cell (as a cell's type), or a column whose type is not known (SQLite expressions)
    kBool,
    kInt,      // int2, int4, int8, oid; SQLite INTEGER
    kFloat,    // float4, float8; SQLite REAL
    kNumeric,  // numeric/decimal: exact text
    kText,     // text, varchar, char, name, and any type without its own kind (printed as text)
    kBytes,    // bytea; SQLite BLOB
    kUuid,
    kDate,
    kTime,         // time, timetz
    kTimestamp,    // timestamp without time zone
    kTimestampTz,  // timestamp with time zone
    kInterval,
    kJson,   // json, jsonb
    kArray,  // PostgreSQL arrays of the kinds above: cells hold store/array_cell.h's tokens, Column::element the kind
};

std::string_view column_type_name(ColumnType type);

}  // namespace slipstream::store
