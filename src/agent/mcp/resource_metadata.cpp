// resource_metadata(): checks the ServerConfig members and writes the RFC 9728 document.
#include "agent/mcp/resource_metadata.h"

#include <algorithm>
#include <stdexcept>

#include "agent/mcp/jsonrpc.h"

namespace slipstream::mcp::detail {

namespace {

std::invalid_argument bad(std::string_view member, std::string_view reason) {
    return std::invalid_argument(std::string(member) + ": " + std::string(reason));
}

std::size_t scheme_length(std::string_view url) {
    if (url.starts_with("https://")) return 8;
    if (url.starts_with("http://")) return 7;
    return 0;
}

// An absolute http(s) URL with a host, without fragment, spaces, quotes, backslashes or controls (it goes into a
// quoted-string and a JSON string).
void check_url(std::string_view member, std::string_view url, bool query_allowed) {
    const std::size_t scheme = scheme_length(url);
    if (scheme == 0) throw bad(member, "must be an absolute http or https URL");
    const std::size_t host_end = url.find_first_of("/?#", scheme);
    if (host_end == scheme || scheme == url.size()) throw bad(member, "must name a host");
    for (const char c : url)
        if (c == '"' || c == '\\' || static_cast<unsigned char>(c) <= 0x20 || c == 0x7F)
            throw bad(member, "must not hold spaces, quotes, backslashes or control characters");
    if (url.find('#') != std::string_view::npos) throw bad(member, "must not have a fragment");
    if (!query_allowed && url.find('?') != std::string_view::npos) throw bad(member, "must not have a query");
}

// RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E )
bool scope_token(std::string_view s) {
    if (s.empty()) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u == 0x21 || (u >= 0x23 && u <= 0x5B) || (u >= 0x5D && u <= 0x7E);
    });
}

void write_array(std::string& out, std::string_view key, const std::vector<std::string>& items) {
    if (items.empty()) return;
    out += ',' + quote(key) + ":[";
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i) out += ',';
        out += quote(items[i]);
    }
    out += ']';
}

}  // namespace

std::string well_known_url(std::string_view resource) {
    const std::size_t scheme = scheme_length(resource);
    std::size_t host_end = resource.find_first_of("/?", scheme);
    if (host_end == std::string_view::npos) host_end = resource.size();
    std::string_view rest = resource.substr(host_end);
    if (rest.starts_with("/") && (rest.size() == 1 || rest[1] == '?')) rest.remove_prefix(1);
    return std::string(resource.substr(0, host_end)) + std::string(kWellKnownResource) + std::string(rest);
}

std::optional<ResourceMetadata> resource_metadata(const ServerConfig& config, std::string_view mount_path) {
    if (config.resource.empty()) return std::nullopt;
    check_url("resource", config.resource, true);
    if (config.authorization_servers.empty())
        throw bad("authorization_servers", "at least one is required with resource (the MCP authorization spec)");
    for (const std::string& issuer : config.authorization_servers)
        check_url("authorization_servers", issuer, false);
    for (const std::string& scope : config.scopes_supported)
        if (!scope_token(scope)) throw bad("scopes_supported", "'" + scope + "' is not a scope token");
    for (std::size_t i = 0; i < config.bearer_methods_supported.size(); ++i) {
        const std::string& m = config.bearer_methods_supported[i];
        if (m != "header" && m != "body" && m != "query")
            throw bad("bearer_methods_supported", "'" + m + "' is none of header, body, query");
        for (std::size_t j = 0; j < i; ++j)
            if (config.bearer_methods_supported[j] == m) throw bad("bearer_methods_supported", "'" + m + "' twice");
    }
    ResourceMetadata meta;
    meta.url = config.resource_metadata_url.empty() ? well_known_url(config.resource) : config.resource_metadata_url;
    check_url("resource_metadata_url", meta.url, true);
    meta.document = "{\"resource\":" + quote(config.resource);
    write_array(meta.document, "authorization_servers", config.authorization_servers);
    write_array(meta.document, "scopes_supported", config.scopes_supported);
    write_array(meta.document, "bearer_methods_supported", config.bearer_methods_supported);
    if (!config.resource_name.empty()) meta.document += ",\"resource_name\":" + quote(config.resource_name);
    meta.document += '}';
    meta.paths.emplace_back(kWellKnownResource);
    if (!mount_path.empty() && mount_path != "/")
        meta.paths.push_back(std::string(kWellKnownResource) + (mount_path.front() == '/' ? "" : "/") +
                             std::string(mount_path));
    return meta;
}

}  // namespace slipstream::mcp::detail
