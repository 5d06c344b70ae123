// Tests: HPACK dynamic table accounting, eviction, capacity changes and lookups, against a simple model.
#include "http/h2/hpack/hpack_dynamic_table.h"

#include <gtest/gtest.h>

#include <deque>
#include <random>
#include <string>
#include <utility>

namespace slipstream::http::h2 {
namespace {

using Model = std::deque<std::pair<std::string, std::string>>;  // newest first

void expect_same(const HpackDynamicTable& t, const Model& m, std::size_t model_size) {
    ASSERT_EQ(t.count(), m.size());
    ASSERT_EQ(t.size(), model_size);
    for (std::size_t i = 0; i < m.size(); ++i) {
        ASSERT_EQ(t.name(i), m[i].first) << i;
        ASSERT_EQ(t.value(i), m[i].second) << i;
    }
}

TEST(HpackDynamicTable, SizeIsNamePlusValuePlus32) {
    HpackDynamicTable t(4096);
    EXPECT_TRUE(t.insert("custom-key", "custom-header"));
    EXPECT_EQ(t.size(), 55u);  // RFC 7541 C.2.1
    EXPECT_TRUE(t.insert("", ""));
    EXPECT_EQ(t.size(), 87u);
    EXPECT_EQ(t.count(), 2u);
    EXPECT_EQ(t.name(0), "");
    EXPECT_EQ(t.name(1), "custom-key");
}

TEST(HpackDynamicTable, EvictsOldestBeforeInserting) {
    HpackDynamicTable t(100);
    ASSERT_TRUE(t.insert("aaaa", "1111"));  // 40
    ASSERT_TRUE(t.insert("bbbb", "2222"));  // 80
    ASSERT_TRUE(t.insert("cccc", "3333"));  // 120 > 100: "aaaa" goes first
    expect_same(t, {{"cccc", "3333"}, {"bbbb", "2222"}}, 80);
    ASSERT_TRUE(t.insert("d", std::string(59, 'x')));  // exactly 92: both others go
    expect_same(t, {{"d", std::string(59, 'x')}}, 92);
}

TEST(HpackDynamicTable, ExactFitAndOneByteTooMany) {
    HpackDynamicTable t(64);
    ASSERT_TRUE(t.insert("ab", std::string(30, 'v')));  // 64: fits exactly
    expect_same(t, {{"ab", std::string(30, 'v')}}, 64);
    EXPECT_FALSE(t.insert("ab", std::string(31, 'v')));  // 65: empties the table
    expect_same(t, {}, 0);
}

TEST(HpackDynamicTable, CapacityChangesEvict) {
    HpackDynamicTable t(4096);
    for (int i = 0; i < 10; ++i)
        ASSERT_TRUE(t.insert("n" + std::to_string(i), "v"));  // 35 each
    t.set_capacity(100);
    expect_same(t, {{"n9", "v"}, {"n8", "v"}}, 70);
    t.set_capacity(0);
    expect_same(t, {}, 0);
    EXPECT_FALSE(t.insert("a", ""));
    t.set_capacity(4096);
    EXPECT_TRUE(t.insert("a", ""));
    EXPECT_EQ(t.capacity(), 4096u);
}

TEST(HpackDynamicTable, InsertMayNameAnEntryItEvicts) {
    HpackDynamicTable t(80);
    ASSERT_TRUE(t.insert("first-name", "v1"));  // 44
    // The name views entry 0, which the insert must evict (44 + 45 > 80).
    ASSERT_TRUE(t.insert(t.name(0), "v22"));
    expect_same(t, {{"first-name", "v22"}}, 45);
    ASSERT_TRUE(t.insert(t.name(0), t.value(0)));
    expect_same(t, {{"first-name", "v22"}}, 45);
}

TEST(HpackDynamicTable, FindsNewestMatches) {
    HpackDynamicTable t(4096, true);
    EXPECT_EQ(t.find("a", "1"), HpackDynamicTable::kNone);
    ASSERT_TRUE(t.insert("a", "1"));
    ASSERT_TRUE(t.insert("b", "2"));
    ASSERT_TRUE(t.insert("a", "3"));
    EXPECT_EQ(t.find("a", "1"), 2u);
    EXPECT_EQ(t.find("a", "3"), 0u);
    EXPECT_EQ(t.find("b", "2"), 1u);
    EXPECT_EQ(t.find("a", "2"), HpackDynamicTable::kNone);
    EXPECT_EQ(t.find("", ""), HpackDynamicTable::kNone);
    EXPECT_EQ(t.find_name("a"), 0u);
    EXPECT_EQ(t.find_name("b"), 1u);
    EXPECT_EQ(t.find_name("c"), HpackDynamicTable::kNone);
    t.set_capacity(68);  // keeps the two newest (34 each)
    EXPECT_EQ(t.find("a", "1"), HpackDynamicTable::kNone);
    EXPECT_EQ(t.find("b", "2"), 1u);
    t.set_capacity(0);
    EXPECT_EQ(t.find("a", "3"), HpackDynamicTable::kNone);
    EXPECT_EQ(t.find_name("a"), HpackDynamicTable::kNone);
}

// Random inserts and capacity changes against a deque: contents, sizes and lookups agree after each step.
TEST(HpackDynamicTable, MatchesModelUnderRandomUse) {
    std::mt19937 rng(32);
    for (bool indexed : {false, true}) {
        HpackDynamicTable t(4096, indexed);
        Model m;
        std::size_t model_size = 0;
        std::uint32_t capacity = 4096;
        for (int step = 0; step < 20000; ++step) {
            if (rng() % 200 == 0) {
                capacity = rng() % 5000;
                t.set_capacity(capacity);
                while (model_size > capacity) {
                    model_size -= m.back().first.size() + m.back().second.size() + 32;
                    m.pop_back();
                }
            } else {
                std::string name = "n" + std::to_string(rng() % 20);
                std::string value(rng() % 5 == 0 ? rng() % 3000 : rng() % 40, static_cast<char>('a' + rng() % 3));
                if (rng() % 3 == 0 && t.count() > 0) name = std::string(t.name(rng() % t.count()));
                std::size_t need = name.size() + value.size() + 32;
                bool fits = need <= capacity;
                ASSERT_EQ(t.insert(name, value), fits);
                if (!fits) {
                    m.clear();
                    model_size = 0;
                } else {
                    while (model_size + need > capacity) {
                        model_size -= m.back().first.size() + m.back().second.size() + 32;
                        m.pop_back();
                    }
                    m.emplace_front(name, value);
                    model_size += need;
                }
            }
            expect_same(t, m, model_size);
            if (indexed && !m.empty()) {
                const auto& probe = m[rng() % m.size()];
                std::size_t newest = HpackDynamicTable::kNone;
                std::size_t newest_name = HpackDynamicTable::kNone;
                for (std::size_t i = m.size(); i-- > 0;) {
                    if (m[i] == probe) newest = i;
                    if (m[i].first == probe.first) newest_name = i;
                }
                ASSERT_EQ(t.find(probe.first, probe.second), newest);
                ASSERT_EQ(t.find_name(probe.first), newest_name);
            }
        }
    }
}

}  // namespace
}  // namespace slipstream::http::h2
