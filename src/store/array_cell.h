// Array cells: how a ResultSet keeps an array value (ColumnType::kArray) so readers walk it without a parser.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "json/writer.h"
#include "store/column_type.h"

namespace slipstream::store {

/// Arrays nest at most this deep (PostgreSQL's MAXDIM).
inline constexpr int kMaxArrayDepth = 6;

/// Appends an array cell's tokens to a buffer: begin()/end() around each (sub-)array, null() or element() for
/// each element, in order. An element is the canonical bytes of its kind (column_type.h; raw bytes for kBytes).
/// Encoding: '[' begin, ']' end, 'N' null, 'E' + 4-byte little-endian length + the bytes.
class ArrayCellWriter {
  public:
    explicit ArrayCellWriter(std::string& out) : out_(out) {}
    void begin() { out_.push_back('['); }
    void end() { out_.push_back(']'); }
    void null() { out_.push_back('N'); }
    void element(std::string_view bytes);

  private:
    std::string& out_;
};

/// What read_array_cell reports, in order. A status other than ok stops the walk and is returned.
class ArrayCellVisitor {
  public:
    virtual ~ArrayCellVisitor() = default;
    virtual base::Status begin() = 0;
    virtual base::Status end() = 0;
    virtual base::Status null() = 0;
    virtual base::Status element(std::string_view bytes) = 0;
};

/// Walks an array cell written by ArrayCellWriter. invalid_argument for bytes that are not one well-formed,
/// balanced array (never the case for a driver's cell).
base::Status read_array_cell(std::string_view cell, ArrayCellVisitor& visitor);

/// Writes an array cell as the writer's next value: nested JSON arrays, null, and each element through
/// write_cell_json(`element`) (json_rows.h), so an int[] reads [1,2], a numeric[] ["1.50"], a bytea[] base64.
[[nodiscard]] base::Status write_array_cell_json(json::Writer& writer, std::string_view cell, ColumnType element);

}  // namespace slipstream::store
