// SQL written once with $1..$n placeholders, adapted to the backend that runs it.
#pragma once

#include <string>
#include <string_view>

#include "store/database/database.h"

namespace slipstream::agent::sessions {

/// `sql` for `backend`: PostgreSQL takes it as is; SQLite gets ?1..?n for $1..$n (same numbering, so a
/// parameter may be used twice). The statements of this folder hold no '$' elsewhere.
std::string sql_for(store::Backend backend, std::string_view sql);

}  // namespace slipstream::agent::sessions
