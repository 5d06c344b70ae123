// BucketTable against a simple model: lookups, LRU order, erase (slot moves) and erase_expired.
#include "policy/ratelimit/bucket_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <list>
#include <map>
#include <random>
#include <string>

namespace slipstream::policy::ratelimit::detail {
namespace {

// The model: key -> (hash, state), and keys from most to least recently used.
struct Model {
    std::map<std::string, std::pair<std::uint64_t, GcraState>> entries;
    std::list<std::string> order;

    void use(const std::string& key) {
        order.remove(key);
        order.push_front(key);
    }
    void remove(const std::string& key) {
        entries.erase(key);
        order.remove(key);
    }
};

void expect_same(const BucketTable& table, const Model& model) {
    ASSERT_EQ(table.size(), model.entries.size());
    for (const auto& [key, value] : model.entries) {
        const std::uint32_t slot = table.find(key, value.first);
        ASSERT_NE(slot, BucketTable::kNone) << key;
        EXPECT_EQ(table.key(slot), key);
        EXPECT_EQ(table.state(slot).tat_ns, value.second.tat_ns);
        EXPECT_EQ(table.state(slot).under, value.second.under);
        EXPECT_LE(table.earliest_expiry(), value.second.tat_ns);
    }
    if (model.order.empty()) {
        EXPECT_EQ(table.lru(), BucketTable::kNone);
    } else {
        ASSERT_NE(table.lru(), BucketTable::kNone);
        EXPECT_EQ(table.key(table.lru()), model.order.back());
    }
}

TEST(BucketTableTest, FindInsertTouchErase) {
    BucketTable t(4);
    EXPECT_EQ(t.capacity(), 4u);
    EXPECT_EQ(t.find("a", 1), BucketTable::kNone);
    EXPECT_EQ(t.lru(), BucketTable::kNone);
    const std::uint32_t a = t.insert("a", 1, {10, 0});
    const std::uint32_t b = t.insert("b", 2, {20, 1});
    const std::uint32_t c = t.insert("c", 3, {5, 2});
    EXPECT_EQ(a, 0u);
    EXPECT_EQ(b, 1u);
    EXPECT_EQ(c, 2u);
    EXPECT_EQ(t.find("b", 2), b);
    EXPECT_EQ(t.find("b", 3), BucketTable::kNone);  // another hash, another home
    EXPECT_EQ(t.earliest_expiry(), 5);
    EXPECT_EQ(t.key(t.lru()), "a");
    t.touch(a);
    EXPECT_EQ(t.key(t.lru()), "b");
    // Erasing slot 0 moves "c" from slot 2 into it.
    t.erase(a);
    EXPECT_EQ(t.size(), 2u);
    EXPECT_EQ(t.find("a", 1), BucketTable::kNone);
    EXPECT_EQ(t.find("c", 3), 0u);
    EXPECT_EQ(t.state(0).tat_ns, 5);
    EXPECT_EQ(t.state(0).under, 2u);
    EXPECT_EQ(t.key(t.lru()), "b");
    t.erase(t.lru());
    EXPECT_EQ(t.key(t.lru()), "c");
    t.erase(t.lru());
    EXPECT_EQ(t.lru(), BucketTable::kNone);
    EXPECT_EQ(t.size(), 0u);
}

TEST(BucketTableTest, EraseExpiredRemovesExactlyTheFullBuckets) {
    BucketTable t(8);
    for (int i = 0; i < 8; ++i)
        (void)t.insert("k" + std::to_string(i), static_cast<std::uint64_t>(i), {i * 10, 0});
    EXPECT_EQ(t.earliest_expiry(), 0);
    EXPECT_EQ(t.erase_expired(35), 4u);  // tat 0, 10, 20, 30
    EXPECT_EQ(t.size(), 4u);
    EXPECT_EQ(t.earliest_expiry(), 40);
    for (int i = 0; i < 8; ++i) {
        const std::uint32_t slot = t.find("k" + std::to_string(i), static_cast<std::uint64_t>(i));
        EXPECT_EQ(slot == BucketTable::kNone, i < 4) << i;
    }
    EXPECT_EQ(t.key(t.lru()), "k4");
    EXPECT_EQ(t.erase_expired(39), 0u);
    EXPECT_EQ(t.erase_expired(1000), 4u);
    EXPECT_EQ(t.size(), 0u);
    EXPECT_EQ(t.lru(), BucketTable::kNone);
}

// Random operations with hashes drawn from few values, so probe runs collide, wrap around the
// index and are shifted back on erase; every step is compared with the model.
TEST(BucketTableTest, RandomOperationsMatchTheModel) {
    for (const std::uint64_t hash_values : {3u, 17u, 1000u}) {
        SCOPED_TRACE(hash_values);
        constexpr std::size_t kCapacity = 40;
        BucketTable table(kCapacity);
        Model model;
        std::mt19937_64 rng(42 + hash_values);
        auto hash_of = [&](int id) {
            // Spread the few hash values over the index, including its last positions.
            return (static_cast<std::uint64_t>(id) % hash_values) * 0x9e3779b97f4a7c15ULL;
        };
        std::int64_t now = 0;
        for (int step = 0; step < 20'000; ++step) {
            const int id = static_cast<int>(rng() % 80);
            const std::string key = "key-" + std::to_string(id);
            const std::uint64_t hash = hash_of(id);
            const bool present = model.entries.count(key) != 0;
            const std::uint32_t slot = table.find(key, hash);
            ASSERT_EQ(slot != BucketTable::kNone, present) << key;
            now += static_cast<std::int64_t>(rng() % 3);
            switch (rng() % 8) {
                case 0:
                case 1:
                case 2:
                    if (present) {
                        const GcraState s{now + static_cast<std::int64_t>(rng() % 100),
                                          static_cast<std::uint32_t>(step)};
                        table.set_state(slot, s);
                        table.touch(slot);
                        model.entries[key].second = s;
                        model.use(key);
                    } else if (table.size() < kCapacity) {
                        const GcraState s{now + static_cast<std::int64_t>(rng() % 100), 7};
                        (void)table.insert(key, hash, s);
                        model.entries[key] = {hash, s};
                        model.use(key);
                    }
                    break;
                case 3:
                case 4:
                    if (present) {
                        table.erase(slot);
                        model.remove(key);
                    }
                    break;
                case 5:
                    if (table.lru() != BucketTable::kNone) {
                        const std::string victim = table.key(table.lru());
                        ASSERT_EQ(victim, model.order.back());
                        table.erase(table.lru());
                        model.remove(victim);
                    }
                    break;
                case 6: {
                    std::size_t expected = 0;
                    for (auto it = model.entries.begin(); it != model.entries.end();) {
                        if (it->second.second.tat_ns <= now) {
                            model.order.remove(it->first);
                            it = model.entries.erase(it);
                            ++expected;
                        } else {
                            ++it;
                        }
                    }
                    ASSERT_EQ(table.erase_expired(now), expected);
                    break;
                }
                default:
                    break;
            }
            expect_same(table, model);
            if (HasFatalFailure()) return;
        }
        // The whole LRU order, by evicting from its end.
        while (!model.order.empty()) {
            ASSERT_EQ(table.key(table.lru()), model.order.back());
            table.erase(table.lru());
            model.order.pop_back();
        }
        EXPECT_EQ(table.size(), 0u);
    }
}

}  // namespace
}  // namespace slipstream::policy::ratelimit::detail
