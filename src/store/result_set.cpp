// ResultSet: cell storage and typed access.
#include "store/result_set.h"

#include <charconv>

#include "base/assert.h"
#include "json/writer.h"
#include "store/array_cell.h"

namespace slipstream::store {

int ResultSet::find_column(std::string_view name) const {
    for (std::size_t i = 0; i < columns_.size(); ++i) {
        if (columns_[i].name == name) return static_cast<int>(i);
    }
    return -1;
}

const ResultSet::Cell& ResultSet::cell(std::size_t row, std::size_t col) const {
    SLIPSTREAM_ASSERT(col < columns_.size() && row < row_count());
    return cells_[row * columns_.size() + col];
}

std::string_view ResultSet::text(std::size_t row, std::size_t col) const {
    const Cell& c = cell(row, col);
    return std::string_view(data_).substr(c.offset, c.size);
}

Value ResultSet::value(std::size_t row, std::size_t col) const {
    const Cell& c = cell(row, col);
    std::string_view t = std::string_view(data_).substr(c.offset, c.size);
    switch (c.type) {
        case ColumnType::kNull:
            return std::monostate{};
        case ColumnType::kBool:
            return t == "t" || t == "true" || t == "1";
        case ColumnType::kInt: {
            std::int64_t v = 0;
            auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
            if (ec == std::errc() && end == t.data() + t.size()) return v;
            return std::string(t);
        }
        case ColumnType::kFloat: {
            double d = 0;
            // from_chars reads "NaN", "Infinity" and "-Infinity" as strtod does, without the locale.
            auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), d);
            if (ec == std::errc() && end == t.data() + t.size()) return d;
            return std::string(t);
        }
        case ColumnType::kBytes:
            return Bytes{std::string(t)};
        case ColumnType::kArray: {
            std::string out;
            json::Writer w(out);
            if (!write_array_cell_json(w, t, columns_[col].element).is_ok()) return std::string(t);
            return out;
        }
        default:
            return std::string(t);
    }
}

void ResultSet::add_column(std::string name, ColumnType type, std::uint32_t type_oid, ColumnType element) {
    columns_.push_back(Column{std::move(name), type, type_oid, element});
}

void ResultSet::reserve(std::size_t rows, std::size_t data_bytes) {
    cells_.reserve(rows * columns_.size());
    data_.reserve(data_bytes);
}

std::string& ResultSet::begin_cell(ColumnType type) {
    cells_.push_back(Cell{static_cast<std::uint32_t>(data_.size()), 0, type});
    return data_;
}

void ResultSet::end_cell() {
    Cell& c = cells_.back();
    c.size = static_cast<std::uint32_t>(data_.size() - c.offset);
}

void ResultSet::end_cell(ColumnType type) {
    end_cell();
    cells_.back().type = type;
}

void ResultSet::append_null() {
    cells_.push_back(Cell{static_cast<std::uint32_t>(data_.size()), 0, ColumnType::kNull});
}

}  // namespace slipstream::store
