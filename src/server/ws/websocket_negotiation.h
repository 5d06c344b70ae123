// WebSocket handshake steps HTTP/1.1 (Upgrade) and HTTP/2 (extended CONNECT, RFC 8441) share.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "http/ws/deflate_config.h"
#include "http/ws/handshake.h"
#include "server/conn/route_table.h"
#include "server/conn/worker.h"
#include "server/core/request_state.h"
#include "server/ws/websocket_channel.h"
#include "slipstream/response.h"

namespace slipstream::server {

/// A problem+json refusal of a handshake. `upgrade_fields`: a 426 also carries Upgrade: websocket and
/// Sec-WebSocket-Version: 13 (HTTP/1.1 only: HTTP/2 has no Upgrade field).
Response websocket_refusal(int status, std::string_view detail, bool upgrade_fields = true);

/// Runs the route's on_upgrade, if any (authentication, origin checks): its refusal, or nullopt to go on.
/// An exception is logged and becomes a 500 refusal.
std::optional<Response> websocket_veto(const RouteEntry& entry, slipstream::detail::RequestState& state);

/// What the server answers a valid handshake with, whatever the protocol.
struct WebSocketOffer {
    std::optional<http::ws::DeflateConfig> deflate;                 // permessage-deflate, when negotiated
    std::string extensions;                                         // Sec-WebSocket-Extensions; empty: none
    std::string subprotocol;                                        // chosen now unless manual accept; empty: none
    std::shared_ptr<slipstream::detail::WebSocketChannel> channel;  // for the WebSocketSession; no request yet
};

/// Negotiates permessage-deflate (when ServerOptions::ws_deflate) and, unless the handler accepts
/// manually, the subprotocol, from the client's Sec-WebSocket-Extensions and -Protocol values; makes the
/// channel on this loop thread. The caller moves the request into `channel->request` and detaches it.
WebSocketOffer negotiate_websocket(Worker& worker, const WebSocketHandler& handler,
                                   const http::ws::UpgradeRequest& request);

/// A RequestRecord whose views point into its own strings: a manually accepted handshake is logged after
/// the request buffer is gone.
struct OwnedRecord {
    explicit OwnedRecord(const RequestRecord& r);
    OwnedRecord(const OwnedRecord&) = delete;
    OwnedRecord& operator=(const OwnedRecord&) = delete;

    std::string route, method, path, request_id, trace_id;
    RequestRecord record;
};

}  // namespace slipstream::server
