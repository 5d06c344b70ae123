// DecideAccess: the access file's parser and the per-request lookup.
#include "agent/decide/decide_access.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "agent/shared_state/token_scopes.h"

namespace slipstream::agent::decide {

namespace {

constexpr std::size_t kMaxFileBytes = 16 * 1024 * 1024;

bool tenant_name(std::string_view s) {
    if (s.empty() || s.size() > 64) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
               c == '-';
    });
}

std::vector<std::string_view> words(std::string_view line) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
            ++i;
        std::size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t')
            ++i;
        if (i > start) out.push_back(line.substr(start, i - start));
    }
    return out;
}

}  // namespace

bool parse_access_level(std::string_view text, AccessLevel& out) {
    if (text == "none")
        out = AccessLevel::kNone;
    else if (text == "read")
        out = AccessLevel::kRead;
    else if (text == "write")
        out = AccessLevel::kWrite;
    else
        return false;
    return true;
}

base::Result<DecideAccess> DecideAccess::parse(std::string_view text, AccessLevel default_level,
                                               std::size_t max_lines) {
    DecideAccess access(default_level);
    std::size_t number = 0;
    while (!text.empty()) {
        ++number;
        const std::size_t end = text.find('\n');
        std::string_view line = text.substr(0, end);
        text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
        if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        const std::vector<std::string_view> w = words(line);
        if (w.empty()) continue;
        const std::string where = "line " + std::to_string(number) + ": ";
        if (w.size() > 3)
            return base::Status::invalid_argument(where + "expected <principal> <read|write|none> [tenants]");
        if (w.size() < 2) return base::Status::invalid_argument(where + "expected an access level after the principal");
        Entry e;
        if (!parse_access_level(w[1], e.level))
            return base::Status::invalid_argument(where + "unknown access level \"" + std::string(w[1]) +
                                                  "\" (read, write or none)");
        if (w.size() == 3) {
            std::string_view list = w[2];
            while (true) {
                const std::size_t comma = list.find(',');
                std::string_view t = list.substr(0, comma);
                if (!tenant_name(t))
                    return base::Status::invalid_argument(where + "\"" + std::string(t) +
                                                          "\" is not a tenant name ([A-Za-z0-9._-]{1,64})");
                e.tenants.emplace_back(t);
                if (comma == std::string_view::npos) break;
                list = list.substr(comma + 1);
            }
        }
        if (access.entries_.size() == max_lines)
            return base::Status::invalid_argument(where + "more than " + std::to_string(max_lines) + " principals");
        if (!access.entries_.emplace(std::string(w[0]), std::move(e)).second)
            return base::Status::invalid_argument(where + "principal \"" + std::string(w[0]) + "\" listed twice");
    }
    return access;
}

base::Result<DecideAccess> DecideAccess::load(const std::string& path, AccessLevel default_level) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return base::Status::not_found("cannot read the decide access file " + path);
    std::ostringstream text;
    text << in.rdbuf();
    if (text.str().size() > kMaxFileBytes)
        return base::Status::invalid_argument("the decide access file " + path + " is larger than 16 MiB");
    base::Result<DecideAccess> parsed = parse(text.str(), default_level);
    if (!parsed.is_ok()) return base::Status::invalid_argument(path + ": " + parsed.status().message());
    return parsed;
}

AccessLevel scoped_level(std::string_view scopes, std::string_view tenant) {
    switch (shared_state::tenant_access(scopes, tenant)) {
        case shared_state::TenantAccess::kWrite:
            return AccessLevel::kWrite;
        case shared_state::TenantAccess::kRead:
            return AccessLevel::kRead;
        case shared_state::TenantAccess::kNone:
            break;
    }
    return AccessLevel::kNone;
}

AccessLevel DecideAccess::level(std::string_view principal, std::string_view tenant) const {
    auto it = entries_.find(std::string(principal));
    if (it == entries_.end()) return default_;
    const Entry& e = it->second;
    if (!e.tenants.empty() && std::find(e.tenants.begin(), e.tenants.end(), tenant) == e.tenants.end())
        return AccessLevel::kNone;
    return e.level;
}

}  // namespace slipstream::agent::decide
