// Test helpers: build a Router from a table and describe a match as one exact string.
#pragma once

#include <array>
#include <initializer_list>
#include <string>
#include <string_view>

#include "router/router.h"

namespace slipstream::server::testing {

/// Concatenates pieces with append(): GCC 12 at -O3 warns falsely (-Wrestrict) on chained operator+.
template <typename... Parts>
std::string cat(const Parts&... parts) {
    std::string s;
    (s.append(std::string_view(parts)), ...);
    return s;
}

struct RouteRow {
    Method method;
    std::string_view pattern;
    RouteId id;
};

inline void add_all(Router& router, std::initializer_list<RouteRow> rows) {
    for (const RouteRow& row : rows)
        router.add(row.method, row.pattern, row.id);
}

/// "7 /users/{id} id=42" (found; " head" after the pattern for an implicit HEAD), "404",
/// "405 GET, HEAD, OPTIONS" or "options GET, HEAD, OPTIONS".
inline std::string describe(const Router& router, Method method, std::string_view path) {
    RouteMatch m;
    MatchOutcome outcome = router.match(method, path, &m);
    std::array<char, kAllowBufferSize> buf{};
    // Built with append(), as cat() above.
    std::string s;
    switch (outcome) {
        case MatchOutcome::kFound:
            s = std::to_string(m.route_id);
            s.append(" ").append(m.pattern);
            if (m.implicit_head) s.append(" head");
            for (const RouteParam& p : m.captured())
                s.append(" ").append(p.name).append("=").append(p.value);
            return s;
        case MatchOutcome::kNotFound:
            return "404";
        case MatchOutcome::kMethodNotAllowed:
            return s.append("405 ").append(format_allow(m.allowed, buf));
        case MatchOutcome::kOptions:
            return s.append("options ").append(format_allow(m.allowed, buf));
    }
    return "?";
}

struct Case {
    Method method;
    std::string_view path;
    std::string_view expected;
};

}  // namespace slipstream::server::testing
