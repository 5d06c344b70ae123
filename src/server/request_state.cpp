// Detaching a request from the connection's buffers.
#include "server/request_state.h"

namespace slipstream::detail {
namespace {

// Copies `view` to the end of `storage` (reserved beforehand, so no reallocation moves earlier copies).
std::string_view keep(std::string& storage, std::string_view view) {
    if (view.empty()) return {};
    std::size_t at = storage.size();
    storage.append(view);
    return {storage.data() + at, view.size()};
}

}  // namespace

void RequestState::detach() {
    std::size_t total = method.size() + target.size() + path.size() + query.size() + body.size() + request_id.size() +
                        traceparent.size();
    for (const auto& h : headers)
        total += h.name.size() + h.value.size();
    for (std::size_t i = 0; i < match.param_count; ++i)
        total += match.params[i].value.size();
    storage_.clear();
    storage_.reserve(total);
    method = keep(storage_, method);
    target = keep(storage_, target);
    path = keep(storage_, path);
    query = keep(storage_, query);
    body = keep(storage_, body);
    request_id = keep(storage_, request_id);
    std::size_t trace_offset = trace_id.empty() ? 0 : static_cast<std::size_t>(trace_id.data() - traceparent.data());
    traceparent = keep(storage_, traceparent);
    if (!trace_id.empty()) trace_id = traceparent.substr(trace_offset, trace_id.size());
    owned_headers_.clear();
    owned_headers_.reserve(headers.size());
    for (const auto& h : headers)
        owned_headers_.push_back({keep(storage_, h.name), keep(storage_, h.value)});
    headers = owned_headers_;
    for (std::size_t i = 0; i < match.param_count; ++i) {
        match.params[i].value = keep(storage_, match.params[i].value);
    }
}

}  // namespace slipstream::detail
