// cat(): string concatenation without `"literal" + std::string&&` (g++ 12 -Wrestrict false positive, PR105651).
#pragma once

#include <string>
#include <string_view>

namespace slipstream::json::schema::detail {

/// Concatenates anything convertible to std::string_view.
template <typename... Parts>
std::string cat(const Parts&... parts) {
    std::string out;
    out.reserve((std::string_view(parts).size() + ... + 0));
    (out.append(std::string_view(parts)), ...);
    return out;
}

}  // namespace slipstream::json::schema::detail
