// Route pattern parsing with precise registration errors.
#include "router/route_pattern.h"

#include <stdexcept>

namespace slipstream::server {
namespace {

[[noreturn]] void fail(std::string_view pattern, const std::string& what) {
    std::string msg = "invalid route pattern \"";
    msg.append(pattern);
    msg += "\": ";
    msg += what;
    throw std::invalid_argument(msg);
}

bool is_identifier(std::string_view name) {
    auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
    if (name.empty() || !alpha(name[0])) return false;
    for (char c : name) {
        if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
    }
    return true;
}

std::string at(std::size_t offset) {
    return " at offset " + std::to_string(offset);
}

// Parses the parameter whose '{' is at `open` and returns the part; `close` receives the '}' offset.
PatternPart parse_param(std::string_view p, std::size_t open, std::size_t* close) {
    std::size_t end = p.find('}', open + 1);
    if (end == std::string_view::npos) fail(p, "unclosed '{'" + at(open));
    std::string_view inner = p.substr(open + 1, end - open - 1);
    if (auto nested = inner.find('{'); nested != std::string_view::npos) {
        fail(p, "'{' inside a parameter" + at(open + 1 + nested));
    }
    std::size_t colon = inner.find(':');
    std::string_view name = inner.substr(0, colon);
    if (name.empty()) fail(p, "empty parameter name" + at(open));
    if (!is_identifier(name)) {
        fail(p, "invalid parameter name '" + std::string(name) + "'" + at(open) +
                    " (use letters, digits and '_', not starting with a digit)");
    }
    PatternPart part{true, std::string(name), ParamType::kStr};
    if (colon != std::string_view::npos) {
        std::string_view type_name = inner.substr(colon + 1);
        auto type = parse_param_type(type_name);
        if (!type) {
            fail(p, "unknown parameter type '" + std::string(type_name) + "' for '" + part.text + "'" + at(open) +
                        " (use str, int, float, uuid or path)");
        }
        part.type = *type;
    }
    *close = end;
    return part;
}

}  // namespace

RoutePattern parse_route_pattern(std::string_view p) {
    if (p.empty() || p[0] != '/') fail(p, "must start with '/'");
    RoutePattern out;
    out.text = std::string(p);
    std::string literal;
    std::size_t i = 0;
    while (i < p.size()) {
        char c = p[i];
        if (c == '}') fail(p, "unmatched '}'" + at(i));
        if (c != '{') {
            literal += c;
            ++i;
            continue;
        }
        // A parameter: it must own its whole segment.
        if (p[i - 1] != '/') fail(p, "a parameter must start a path segment (right after '/')" + at(i));
        std::size_t close = 0;
        PatternPart part = parse_param(p, i, &close);
        for (const PatternPart& prev : out.parts) {
            if (prev.is_param && prev.text == part.text) fail(p, "duplicate parameter name '" + part.text + "'");
        }
        if (out.param_count == kMaxParams) {
            fail(p, "more than " + std::to_string(kMaxParams) + " parameters" + at(i));
        }
        std::size_t after = close + 1;
        if (part.type == ParamType::kPath && after != p.size()) {
            fail(p, "path parameter '" + part.text + "' must end the pattern" + at(after));
        }
        if (after < p.size() && p[after] != '/') {
            fail(p, "parameter '" + part.text + "' must end its path segment (at '/' or the end)" + at(after));
        }
        if (!literal.empty()) out.parts.push_back(PatternPart{false, std::move(literal), ParamType::kStr});
        literal.clear();
        out.parts.push_back(std::move(part));
        ++out.param_count;
        i = after;
    }
    if (!literal.empty()) out.parts.push_back(PatternPart{false, std::move(literal), ParamType::kStr});
    return out;
}

}  // namespace slipstream::server
