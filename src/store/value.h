// Value: one typed cell or query parameter of the store layer (NULL, bool, int64, double, text, bytes).
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace slipstream::store {

/// Raw binary data (PostgreSQL bytea, SQLite BLOB); kept apart from text so that the drivers send it as binary.
struct Bytes {
    std::string data;
    bool operator==(const Bytes&) const = default;
};

/// A cell or a parameter. std::monostate is SQL NULL. Text carries every type that has an exact text form
/// (text, numeric, uuid, date/time, json): as a parameter the server infers its type from the statement.
using Value = std::variant<std::monostate, bool, std::int64_t, double, std::string, Bytes>;

/// Query parameters, bound to $1..$n (PostgreSQL) or ?1..?n / ? (SQLite) in order.
using Params = std::vector<Value>;

}  // namespace slipstream::store
