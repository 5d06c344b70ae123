// UriTemplate::compile() and match().
#include "agent/mcp/uri_template.h"

#include "base/percent_decode.h"

namespace slipstream::mcp::detail {

namespace {

bool name_char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

base::Result<UriTemplate> UriTemplate::compile(std::string_view text) {
    UriTemplate t;
    if (text.empty()) return base::Status::invalid_argument("empty URI template");
    std::size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (c == '}') return base::Status::invalid_argument("unbalanced '}' in URI template");
        if (c != '{') {
            if (t.parts_.empty() || t.parts_.back().variable >= 0) t.parts_.push_back({});
            t.parts_.back().literal.push_back(c);
            ++i;
            continue;
        }
        const std::size_t close = text.find('}', i + 1);
        if (close == std::string_view::npos) return base::Status::invalid_argument("unbalanced '{' in URI template");
        const std::string_view name = text.substr(i + 1, close - i - 1);
        if (name.empty()) return base::Status::invalid_argument("empty variable in URI template");
        for (char n : name)
            if (!name_char(n))
                return base::Status::invalid_argument("only level-1 variables ({name}) are supported, not {" +
                                                      std::string(name) + "}");
        for (const std::string& seen : t.names_)
            if (seen == name) return base::Status::invalid_argument("variable {" + seen + "} appears twice");
        if (!t.parts_.empty() && t.parts_.back().variable >= 0)
            return base::Status::invalid_argument("adjacent variables in URI template");
        t.parts_.push_back({{}, static_cast<int>(t.names_.size())});
        t.names_.emplace_back(name);
        i = close + 1;
    }
    if (t.names_.empty()) return base::Status::invalid_argument("a URI template needs at least one {variable}");
    return t;
}

std::optional<std::vector<std::pair<std::string, std::string>>> UriTemplate::match(std::string_view uri) const {
    std::vector<std::pair<std::string, std::string>> vars;
    std::size_t pos = 0;
    for (std::size_t p = 0; p < parts_.size(); ++p) {
        const Part& part = parts_[p];
        if (part.variable < 0) {
            if (uri.substr(pos, part.literal.size()) != part.literal) return std::nullopt;
            pos += part.literal.size();
            continue;
        }
        // A variable runs to the next literal (the first occurrence) or to the end, never across '/'.
        std::size_t end = uri.size();
        if (p + 1 < parts_.size()) {
            end = uri.find(parts_[p + 1].literal, pos + 1);
            if (end == std::string_view::npos) return std::nullopt;
        }
        const std::string_view raw = uri.substr(pos, end - pos);
        if (raw.empty() || raw.find('/') != std::string_view::npos) return std::nullopt;
        std::string decoded(raw.size(), '\0');
        const base::StrictDecodeResult r = base::percent_decode_strict(raw, decoded, base::PlusMode::kLiteral);
        if (r.error != base::PercentError::kNone) return std::nullopt;
        decoded.resize(r.size);
        vars.emplace_back(names_[static_cast<std::size_t>(part.variable)], std::move(decoded));
        pos = end;
    }
    if (pos != uri.size()) return std::nullopt;
    return vars;
}

}  // namespace slipstream::mcp::detail
