// Reading the decision store's cells: DOUBLE PRECISION columns on either backend.
#pragma once

#include <cstddef>

#include "store/result_set.h"

namespace slipstream::agent::decide {

/// A DOUBLE PRECISION cell (SQLite REAL, PostgreSQL float8; an integer or text form is converted); 0 for NULL.
double double_cell(const store::ResultSet& rows, std::size_t row, std::size_t col);

}  // namespace slipstream::agent::decide
