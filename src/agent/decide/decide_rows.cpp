// double_cell(): the cell's double, whichever way the driver handed it over.
#include "agent/decide/decide_rows.h"

#include <cstdlib>
#include <string>
#include <variant>

namespace slipstream::agent::decide {

double double_cell(const store::ResultSet& rows, std::size_t row, std::size_t col) {
    store::Value v = rows.value(row, col);
    if (const auto* d = std::get_if<double>(&v)) return *d;
    if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
    if (rows.is_null(row, col)) return 0.0;
    return std::strtod(std::string(rows.text(row, col)).c_str(), nullptr);
}

}  // namespace slipstream::agent::decide
