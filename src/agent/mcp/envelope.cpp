// The 2026-07-28 request envelope (basic/index "_meta", basic/versioning) and the members its results carry
// (basic/index "ResultType", server/utilities/caching).
#include "agent/mcp/envelope.h"

#include "agent/mcp/protocol.h"
#include "json/writer.h"

namespace slipstream::mcp::detail {

EnvelopeRead read_envelope(const Message& message, std::string_view server_info_member) {
    EnvelopeRead out;
    const json::Value* meta = message.params != nullptr ? message.params->find("_meta") : nullptr;
    const json::Value* version = meta != nullptr && meta->is_object() ? meta->find(kVersionMetaKey) : nullptr;
    if (version == nullptr) return out;
    if (!version->is_string()) {
        out.status = EnvelopeRead::kInvalid;
        out.error = "Invalid params: _meta \"" + std::string(kVersionMetaKey) + "\" must be a string";
        return out;
    }
    if (!is_modern_version(version->as_string())) {
        // A handshake-era version in a per-request envelope is not served statelessly either: -32022 names ours.
        out.status = EnvelopeRead::kUnsupported;
        out.requested = version->as_string();
        return out;
    }
    const json::Value* caps = meta->find(kCapabilitiesMetaKey);
    if (caps == nullptr || !caps->is_object()) {
        out.status = EnvelopeRead::kInvalid;
        out.error = "Invalid params: _meta \"" + std::string(kCapabilitiesMetaKey) + "\" must be an object";
        return out;
    }
    if (const json::Value* level = meta->find(kLogLevelMetaKey); level != nullptr) {
        const auto parsed = level->is_string() ? parse_level(level->as_string()) : std::nullopt;
        if (!parsed) {
            out.status = EnvelopeRead::kInvalid;
            out.error = "Invalid params: _meta \"" + std::string(kLogLevelMetaKey) +
                        "\" must be one of debug, info, notice, warning, error, critical, alert, emergency";
            return out;
        }
        out.envelope.log_level = parsed;
    }
    out.status = EnvelopeRead::kOk;
    out.envelope.version = version->as_string();
    out.envelope.client_capabilities = to_json(*caps);
    out.envelope.server_info_member = server_info_member;
    return out;
}

bool is_modern_method(std::string_view method) {
    static constexpr std::string_view kMethods[] = {
        "server/discover", "tools/list",   "tools/call",  "resources/list",      "resources/templates/list",
        "resources/read",  "prompts/list", "prompts/get", "completion/complete", "subscriptions/listen"};
    for (std::string_view m : kMethods)
        if (m == method) return true;
    return false;
}

std::string unsupported_version_data(std::string_view requested) {
    std::string out;
    json::Writer w(out);
    w.begin_object();
    w.key("supported");
    w.begin_array();
    for (const std::string& v : supported_protocol_versions())
        w.string(v);
    w.end_array();
    w.key("requested");
    w.string(requested);
    w.end_object();
    return out;
}

std::string stamp_result(std::string_view result_object, std::string_view extra_members, std::string_view meta_member) {
    std::string out;
    out.reserve(result_object.size() + extra_members.size() + meta_member.size() + 32);
    out.append(R"({"resultType":"complete")");
    if (!extra_members.empty()) out.append(",").append(extra_members);
    if (!meta_member.empty()) out.append(",").append(meta_member);
    // What follows the object's '{': "}" for an empty object, else its members.
    std::size_t open = result_object.find('{');
    std::string_view rest = open == std::string_view::npos ? std::string_view("}") : result_object.substr(open + 1);
    const std::size_t first = rest.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && rest[first] != '}') out.push_back(',');
    out.append(rest);
    return out;
}

std::string cache_members(std::uint32_t ttl_ms, bool shared) {
    return R"("ttlMs":)" + std::to_string(ttl_ms) +
           (shared ? R"(,"cacheScope":"public")" : R"(,"cacheScope":"private")");
}

std::string_view server_capabilities(std::string_view version) {
    const Features f = features_of(version);
    if (f.stateless_requests)
        return R"({"completions":{},"logging":{},"prompts":{"listChanged":true},)"
               R"("resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true}})";
    if (f.annotations)
        return R"({"completions":{},"logging":{},"prompts":{"listChanged":true},)"
               R"("resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true}})";
    return R"({"logging":{},"prompts":{"listChanged":true},)"
           R"("resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true}})";
}

}  // namespace slipstream::mcp::detail
