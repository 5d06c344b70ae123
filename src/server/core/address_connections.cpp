// AddressConnections: per-address connection counts in mutex-guarded shards.
#include "server/core/address_connections.h"

#include <cstring>

namespace slipstream::server {

bool AddressConnections::key_of(const net::SocketAddress& peer, Key& key) {
    key.family = peer.family();
    if (peer.is_ipv4()) {
        std::uint32_t a;
        std::memcpy(&a, &reinterpret_cast<const sockaddr_in*>(peer.sockaddr_ptr())->sin_addr, sizeof a);
        key.bits = a;
        return true;
    }
    if (peer.is_ipv6()) {
        std::memcpy(&key.bits, &reinterpret_cast<const sockaddr_in6*>(peer.sockaddr_ptr())->sin6_addr, sizeof key.bits);
        return true;
    }
    return false;
}

bool AddressConnections::try_acquire(const net::SocketAddress& peer) {
    Key key;
    if (!key_of(peer, key)) return true;
    Shard& s = shard(key);
    std::lock_guard lock(s.m);
    std::size_t& n = s.open[key];
    if (n >= limit_) {
        if (n == 0) s.open.erase(key);  // limit 0: nothing was counted
        return false;
    }
    ++n;
    return true;
}

void AddressConnections::release(const net::SocketAddress& peer) {
    Key key;
    if (!key_of(peer, key)) return;
    Shard& s = shard(key);
    std::lock_guard lock(s.m);
    auto it = s.open.find(key);
    if (it == s.open.end()) return;
    if (--it->second == 0) s.open.erase(it);
}

std::size_t AddressConnections::count(const net::SocketAddress& peer) const {
    Key key;
    if (!key_of(peer, key)) return 0;
    Shard& s = shard(key);
    std::lock_guard lock(s.m);
    auto it = s.open.find(key);
    return it == s.open.end() ? 0 : it->second;
}

}  // namespace slipstream::server
