// Token lists: iterating comma-separated header values and ASCII case-insensitive comparison.
#pragma once

#include <string_view>

#include "base/ows.h"

namespace slipstream::http::ws {

/// ASCII case-insensitive equality.
bool ascii_iequals(std::string_view a, std::string_view b);

using base::trim_ows;

/// Calls `fn(item)` for each non-empty, trimmed element of a comma-separated list. Commas inside
/// double-quoted strings do not split (extension parameters may be quoted).
template <typename Fn>
void for_each_list_item(std::string_view list, Fn&& fn) {
    std::size_t start = 0;
    bool quoted = false;
    for (std::size_t i = 0; i <= list.size(); ++i) {
        if (i < list.size()) {
            char c = list[i];
            if (c == '"') quoted = !quoted;
            if (c == '\\' && quoted && i + 1 < list.size()) {
                ++i;
                continue;
            }
            if (c != ',' || quoted) continue;
        }
        std::string_view item = trim_ows(list.substr(start, i - start));
        if (!item.empty()) fn(item);
        start = i + 1;
    }
}

}  // namespace slipstream::http::ws
