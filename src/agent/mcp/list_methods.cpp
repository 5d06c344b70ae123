// tools/list, resources/list, resources/templates/list, prompts/list: pages of `page_size` with opaque cursors.
#include "agent/mcp/list_cursor.h"
#include "agent/mcp/server_core.h"

namespace slipstream::mcp::detail {

namespace {

// The page's offset from params.cursor (0 without one); nullopt after answering -32602 for a bad cursor.
std::optional<std::size_t> page_start(const Rpc& req) {
    if (req.message.params == nullptr) return 0;
    const json::Value* cursor = req.message.params->find("cursor");
    if (cursor == nullptr || cursor->is_null()) return 0;
    std::optional<std::size_t> offset = cursor->is_string() ? decode_cursor(cursor->as_string()) : std::nullopt;
    if (!offset) answer_error(req, kInvalidParams, "Invalid params: invalid cursor");
    return offset;
}

void answer_page(const Rpc& req, std::uint32_t cache_ttl_ms, std::string_view key, const std::string& items,
                 std::size_t begin, std::size_t count, std::size_t total) {
    std::string out;
    out.reserve(items.size() + 64);
    out.append("{\"").append(key).append("\":[").append(items).push_back(']');
    if (begin + count < total) out.append(R"(,"nextCursor":)").append(quote(encode_cursor(begin + count)));
    out.push_back('}');
    answer_result(req, out, req.envelope != nullptr ? cache_members(cache_ttl_ms, true) : std::string());
}

}  // namespace

void ServerCore::list(const Rpc& req, ListKind kind) {
    const std::optional<std::size_t> begin = page_start(req);
    if (!begin) return;
    const std::size_t count = config_.page_size ? config_.page_size : 1;
    std::size_t total = 0;
    const std::string items = registry_.page(
        kind, era_of(req.envelope != nullptr ? req.envelope->version : req.session->version()), *begin, count, total);
    if (*begin > total) return answer_error(req, kInvalidParams, "Invalid params: invalid cursor");
    const char* key = kind == ListKind::kTools ? "tools" : kind == ListKind::kResources ? "resources" : "prompts";
    answer_page(req, config_.cache_ttl_ms, key, items, *begin, count, total);
}

void ServerCore::list_templates(const Rpc& req) {
    const std::optional<std::size_t> begin = page_start(req);
    if (!begin) return;
    const std::size_t count = config_.page_size ? config_.page_size : 1;
    std::size_t total = 0;
    const std::string items = registry_.template_page(
        era_of(req.envelope != nullptr ? req.envelope->version : req.session->version()), *begin, count, total);
    if (*begin > total) return answer_error(req, kInvalidParams, "Invalid params: invalid cursor");
    answer_page(req, config_.cache_ttl_ms, "resourceTemplates", items, *begin, count, total);
}

}  // namespace slipstream::mcp::detail
