// ResultSet: the rows of one statement, kept as typed cells in one flat buffer (no object per cell).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "store/column_type.h"
#include "store/value.h"

namespace slipstream::store {

/// One result column: its name, its kind and, for PostgreSQL, the type's OID (0 elsewhere); for a kArray column
/// the kind of its elements.
struct Column {
    std::string name;
    ColumnType type = ColumnType::kNull;
    std::uint32_t type_oid = 0;
    ColumnType element = ColumnType::kNull;
};

/// Rows as cells in row-major order: each cell is a kind (kNull for NULL) and a byte range of one buffer, in the
/// canonical text of column_type.h (raw bytes for kBytes). A cell's kind may differ from its column's (SQLite's
/// dynamic typing). Drivers build it with add_column() / begin_cell() / end_cell() / append_null(). A value type;
/// not thread-safe.
class ResultSet {
  public:
    std::size_t row_count() const { return columns_.empty() ? 0 : cells_.size() / columns_.size(); }
    std::size_t column_count() const { return columns_.size(); }
    const std::vector<Column>& columns() const { return columns_; }
    /// The index of the first column named `name`, or -1.
    int find_column(std::string_view name) const;

    /// Cell accessors; `row` < row_count(), `col` < column_count() (asserted in debug builds).
    bool is_null(std::size_t row, std::size_t col) const { return cell(row, col).type == ColumnType::kNull; }
    ColumnType type(std::size_t row, std::size_t col) const { return cell(row, col).type; }
    /// The cell's bytes (empty for NULL). Valid while the ResultSet lives and is not modified.
    std::string_view text(std::size_t row, std::size_t col) const;
    /// The cell as a Value: NULL -> monostate, kBool -> bool, kInt -> int64 (text when it does not fit),
    /// kFloat -> double (NaN/infinities included), kBytes -> Bytes, kArray -> its JSON text (write_array_cell_json),
    /// every other kind -> its text.
    Value value(std::size_t row, std::size_t col) const;

    /// Rows the statement changed (INSERT/UPDATE/DELETE), or returned for a SELECT; 0 when the server says none.
    std::int64_t affected_rows() const { return affected_rows_; }
    /// PostgreSQL's command tag ("INSERT 0 1", "SELECT 3"); empty for SQLite.
    const std::string& command() const { return command_; }

    // --- building (drivers) ---
    void add_column(std::string name, ColumnType type, std::uint32_t type_oid = 0,
                    ColumnType element = ColumnType::kNull);
    void reserve(std::size_t rows, std::size_t data_bytes);
    /// Starts a cell of kind `type` (not kNull): append its bytes to the returned buffer, then call end_cell().
    std::string& begin_cell(ColumnType type);
    void end_cell();
    /// Ends the cell and sets its kind (for drivers that learn it while writing the bytes).
    void end_cell(ColumnType type);
    void append_cell(ColumnType type, std::string_view bytes) {
        begin_cell(type).append(bytes);
        end_cell();
    }
    void append_null();
    void set_affected_rows(std::int64_t n) { affected_rows_ = n; }
    void set_command(std::string tag) { command_ = std::move(tag); }

  private:
    struct Cell {
        std::uint32_t offset;
        std::uint32_t size;
        ColumnType type;
    };
    const Cell& cell(std::size_t row, std::size_t col) const;

    std::vector<Column> columns_;
    std::vector<Cell> cells_;
    std::string data_;
    std::int64_t affected_rows_ = 0;
    std::string command_;
};

}  // namespace slipstream::store
