// Detaching a request from the connection's buffers.
#include "server/core/request_state.h"

#include <cstring>
#include <new>
#include <type_traits>

namespace slipstream::detail {

void RequestState::detach() {
    std::size_t total = method.size() + target.size() + path.size() + query.size() + body.size() + request_id.size() +
                        traceparent.size();
    for (const auto& h : headers)
        total += h.name.size() + h.value.size();
    for (std::size_t i = 0; i < match.param_count; ++i)
        total += match.params[i].value.size();
    // One block: the header array first (new[] aligns it for any type), the peer (Header's size keeps it
    // aligned), then the bytes. The views are copied before the block replaces an earlier one, so detaching
    // twice is safe.
    static_assert(sizeof(http::h1::Header) % alignof(net::SocketAddress) == 0);
    static_assert(std::is_trivially_destructible_v<http::h1::Header> &&
                  std::is_trivially_destructible_v<net::SocketAddress>);  // freed with the block, never destroyed
    const std::size_t header_bytes = headers.size() * sizeof(http::h1::Header);
    const std::size_t peer_bytes = peer != nullptr ? sizeof(net::SocketAddress) : 0;
    auto block = std::make_unique_for_overwrite<std::byte[]>(header_bytes + peer_bytes + total);
    if (peer != nullptr) peer = ::new (static_cast<void*>(block.get() + header_bytes)) net::SocketAddress(*peer);
    char* next = reinterpret_cast<char*>(block.get() + header_bytes + peer_bytes);
    const auto keep = [&next](std::string_view view) -> std::string_view {
        if (view.empty()) return {};
        std::memcpy(next, view.data(), view.size());
        next += view.size();
        return {next - view.size(), view.size()};
    };
    method = keep(method);
    target = keep(target);
    path = keep(path);
    query = keep(query);
    body = keep(body);
    request_id = keep(request_id);
    std::size_t trace_offset = trace_id.empty() ? 0 : static_cast<std::size_t>(trace_id.data() - traceparent.data());
    traceparent = keep(traceparent);
    if (!trace_id.empty()) trace_id = traceparent.substr(trace_offset, trace_id.size());
    auto* owned_headers = reinterpret_cast<http::h1::Header*>(block.get());
    for (std::size_t i = 0; i < headers.size(); ++i)
        ::new (static_cast<void*>(owned_headers + i)) http::h1::Header{keep(headers[i].name), keep(headers[i].value)};
    headers = {owned_headers, headers.size()};
    for (std::size_t i = 0; i < match.param_count; ++i) {
        match.params[i].value = keep(match.params[i].value);
    }
    owned_ = std::move(block);
}

}  // namespace slipstream::detail
