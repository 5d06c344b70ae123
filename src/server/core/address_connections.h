// AddressConnections: open connections per client address, capped (the max_connections_per_ip option).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "net/socket_address.h"

namespace slipstream::server {

/// Counts the open connections of each client address across every I/O thread of a server and refuses
/// those past `limit`. An IPv4 client is its address; an IPv6 client its /64 (one host usually holds a whole
/// /64, as in the rate limiter). Unix-domain and unspecified peers are neither counted nor refused.
/// Thread-safe: a table of mutex-guarded shards; an entry goes when its count drops to zero, so memory follows
/// the open connections. Used only while the cap is on: a server without it pays nothing.
class AddressConnections {
  public:
    explicit AddressConnections(std::size_t limit) : limit_(limit) {}

    /// Counts a new connection from `peer`; false (nothing counted) when that address already has `limit`.
    bool try_acquire(const net::SocketAddress& peer);
    /// Uncounts a connection try_acquire() counted (a peer it does not count is ignored).
    void release(const net::SocketAddress& peer);
    /// Open connections counted for `peer`'s address (for tests and metrics).
    std::size_t count(const net::SocketAddress& peer) const;

  private:
    struct Key {
        std::uint64_t bits = 0;  // the IPv4 address, or the IPv6 /64
        int family = 0;
        bool operator==(const Key&) const = default;
    };
    struct KeyHash {
        std::size_t operator()(const Key& k) const {
            return static_cast<std::size_t>((k.bits ^ static_cast<std::uint64_t>(k.family)) * 0x9e3779b97f4a7c15ull >>
                                            16);
        }
    };
    struct Shard {
        mutable std::mutex m;
        std::unordered_map<Key, std::size_t, KeyHash> open;
    };
    static constexpr std::size_t kShards = 16;

    // False for peers that are not counted (Unix, unspecified).
    static bool key_of(const net::SocketAddress& peer, Key& key);
    Shard& shard(const Key& key) const { return shards_[KeyHash{}(key) % kShards]; }

    std::size_t limit_;
    mutable std::array<Shard, kShards> shards_;
};

}  // namespace slipstream::server
