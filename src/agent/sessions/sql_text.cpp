// sql_for(): placeholder spelling per backend.
#include "agent/sessions/sql_text.h"

namespace slipstream::agent::sessions {

std::string sql_for(store::Backend backend, std::string_view sql) {
    std::string out(sql);
    if (backend == store::Backend::kSqlite)
        for (char& c : out)
            if (c == '$') c = '?';
    return out;
}

}  // namespace slipstream::agent::sessions
