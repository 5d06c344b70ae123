// Token scopes: parsing and the grants of each scope.
#include "agent/shared_state/token_scopes.h"

#include <algorithm>

namespace slipstream::agent::shared_state {

namespace {

bool tenant_name(std::string_view s) {
    if (s.empty() || s.size() > 64) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
               c == '-';
    });
}

// "read:acme" -> ("read", "acme"); "admin" -> ("admin", "").
std::pair<std::string_view, std::string_view> parts(std::string_view scope) {
    const std::size_t colon = scope.find(':');
    if (colon == std::string_view::npos) return {scope, {}};
    return {scope.substr(0, colon), scope.substr(colon + 1)};
}

}  // namespace

bool valid_scope(std::string_view scope) {
    auto [name, tenant] = parts(scope);
    const bool qualified = scope.find(':') != std::string_view::npos;
    if (name == "admin") return !qualified;
    if (name == "tenant_admin") return qualified && tenant_name(tenant);
    if (name == "read" || name == "write") return !qualified || tenant_name(tenant);
    return false;
}

std::vector<std::string_view> split_scopes(std::string_view scopes) {
    std::vector<std::string_view> out;
    while (!scopes.empty()) {
        const std::size_t space = scopes.find(' ');
        std::string_view word = scopes.substr(0, space);
        if (!word.empty()) out.push_back(word);
        scopes = space == std::string_view::npos ? std::string_view() : scopes.substr(space + 1);
    }
    return out;
}

std::string_view scope_tenant(std::string_view scope) {
    return parts(scope).second;
}

TenantAccess tenant_access(std::string_view scopes, std::string_view tenant) {
    TenantAccess best = TenantAccess::kNone;
    for (std::string_view scope : split_scopes(scopes)) {
        auto [name, on] = parts(scope);
        const bool here = on.empty() || on == tenant;
        if (name == "admin" || ((name == "tenant_admin" || name == "write") && here)) return TenantAccess::kWrite;
        if (name == "read" && here) best = TenantAccess::kRead;
    }
    return best;
}

bool names_access_scope(std::string_view scopes) {
    const std::vector<std::string_view> list = split_scopes(scopes);
    return std::any_of(list.begin(), list.end(), [](std::string_view s) { return valid_scope(s); });
}

bool has_admin(std::string_view scopes) {
    const std::vector<std::string_view> list = split_scopes(scopes);
    return std::find(list.begin(), list.end(), "admin") != list.end();
}

bool may_administer(std::string_view holder, std::string_view scopes) {
    if (has_admin(holder)) return true;
    const std::vector<std::string_view> wanted = split_scopes(scopes);
    if (wanted.empty()) return false;
    for (std::string_view scope : split_scopes(holder)) {
        auto [name, tenant] = parts(scope);
        if (name != "tenant_admin") continue;
        const bool all_on_tenant = std::all_of(wanted.begin(), wanted.end(), [tenant](std::string_view w) {
            auto [n, t] = parts(w);
            return (n == "read" || n == "write") && t == tenant;
        });
        if (all_on_tenant) return true;
    }
    return false;
}

}  // namespace slipstream::agent::shared_state
