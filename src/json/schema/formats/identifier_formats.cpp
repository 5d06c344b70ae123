// uuid and regex checkers (uuid error texts follow pydantic / the uuid crate).
#include "json/schema/formats/formats.h"
#include "json/schema/regex.h"
#include "json/schema/str_cat.h"

namespace slipstream::json::schema::formats {

bool check_uuid(std::string_view s, std::string* error) {
    static constexpr std::size_t kGroups[] = {8, 4, 4, 4, 12};
    for (std::size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == '-';
        if (!ok) {
            if (error) {
                std::size_t len = 1;
                auto b = static_cast<unsigned char>(c);
                if (b >= 0xF0)
                    len = 4;
                else if (b >= 0xE0)
                    len = 3;
                else if (b >= 0xC0)
                    len = 2;
                *error = detail::cat("invalid character: found `", s.substr(i, len), "` at ", std::to_string(i + 1));
            }
            return false;
        }
    }
    std::size_t group = 0, start = 0;
    for (std::size_t i = 0; i <= s.size(); ++i) {
        if (i < s.size() && s[i] != '-') continue;
        if (group >= 5) {
            if (error) *error = detail::cat("invalid group count: expected 5, found ", std::to_string(group + 1));
            return false;
        }
        if (i - start != kGroups[group]) {
            if (error)
                *error = detail::cat("invalid group length in group ", std::to_string(group), ": expected ",
                                     std::to_string(kGroups[group]), ", found ", std::to_string(i - start));
            return false;
        }
        ++group;
        start = i + 1;
    }
    if (group != 5) {
        if (error) *error = detail::cat("invalid group count: expected 5, found ", std::to_string(group));
        return false;
    }
    return true;
}

bool check_regex(std::string_view s, std::string* error) {
    if (detail::is_valid_ecma_regex(s)) return true;
    if (error) *error = "not a valid ECMA-262 regular expression";
    return false;
}

}  // namespace slipstream::json::schema::formats
