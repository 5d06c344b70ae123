// Tests for AddressConnections: the cap per address, IPv6 by /64, release, uncounted peers.
#include "server/core/address_connections.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace slipstream::server {
namespace {

net::SocketAddress addr(const std::string& host, std::uint16_t port) {
    base::Result<net::SocketAddress> a = net::SocketAddress::from_host_port(host, port);
    EXPECT_TRUE(a.is_ok()) << host;
    return *a;
}

TEST(AddressConnections, CapsEachAddressOnItsOwnWhateverThePort) {
    AddressConnections limit(2);
    EXPECT_TRUE(limit.try_acquire(addr("10.0.0.1", 1000)));
    EXPECT_TRUE(limit.try_acquire(addr("10.0.0.1", 1001)));
    EXPECT_FALSE(limit.try_acquire(addr("10.0.0.1", 1002)));  // third from the same address
    EXPECT_EQ(limit.count(addr("10.0.0.1", 0)), 2u);          // the refusal counted nothing
    EXPECT_TRUE(limit.try_acquire(addr("10.0.0.2", 1000)));   // another address has its own count
    EXPECT_EQ(limit.count(addr("10.0.0.2", 0)), 1u);

    limit.release(addr("10.0.0.1", 1000));
    EXPECT_EQ(limit.count(addr("10.0.0.1", 0)), 1u);
    EXPECT_TRUE(limit.try_acquire(addr("10.0.0.1", 1003)));  // room again after a close
    EXPECT_FALSE(limit.try_acquire(addr("10.0.0.1", 1004)));
}

TEST(AddressConnections, Ipv6ClientsAreCountedByTheirSlash64) {
    AddressConnections limit(2);
    EXPECT_TRUE(limit.try_acquire(addr("2001:db8:1:2::1", 1)));
    EXPECT_TRUE(limit.try_acquire(addr("2001:db8:1:2:ffff::9", 1)));  // same /64
    EXPECT_FALSE(limit.try_acquire(addr("2001:db8:1:2::77", 1)));
    EXPECT_TRUE(limit.try_acquire(addr("2001:db8:1:3::1", 1)));  // the next /64
    EXPECT_EQ(limit.count(addr("2001:db8:1:2::5", 0)), 2u);
    // An IPv4 address never shares a count with an IPv6 prefix.
    EXPECT_EQ(limit.count(addr("0.0.0.0", 0)), 0u);
}

TEST(AddressConnections, EntriesGoWhenTheirLastConnectionClosesAndStrayReleasesAreIgnored) {
    AddressConnections limit(1);
    net::SocketAddress a = addr("192.0.2.7", 5);
    limit.release(a);  // never counted: ignored, no underflow
    EXPECT_EQ(limit.count(a), 0u);
    EXPECT_TRUE(limit.try_acquire(a));
    limit.release(a);
    limit.release(a);
    EXPECT_EQ(limit.count(a), 0u);
    EXPECT_TRUE(limit.try_acquire(a));
    EXPECT_FALSE(limit.try_acquire(a));
}

TEST(AddressConnections, UnixAndUnspecifiedPeersAreNeverRefused) {
    AddressConnections limit(1);
    for (int i = 0; i < 3; ++i) {
        EXPECT_TRUE(limit.try_acquire(net::SocketAddress::unix_domain()));
        EXPECT_TRUE(limit.try_acquire(net::SocketAddress()));
    }
    EXPECT_EQ(limit.count(net::SocketAddress::unix_domain()), 0u);
}

TEST(AddressConnections, ThreadsSharingOneAddressNeverExceedTheCap) {
    AddressConnections limit(100);
    std::vector<std::thread> threads;
    std::vector<int> granted(4, 0);
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 1000; ++i)
                if (limit.try_acquire(addr("198.51.100.1", static_cast<std::uint16_t>(i)))) ++granted[t];
        });
    }
    for (auto& th : threads)
        th.join();
    EXPECT_EQ(granted[0] + granted[1] + granted[2] + granted[3], 100);
    EXPECT_EQ(limit.count(addr("198.51.100.1", 0)), 100u);
}

}  // namespace
}  // namespace slipstream::server
