// StaticPathIndex tests: exact hits, near misses, duplicates, growth past many paths.
#include "router/static_path_index.h"

#include <gtest/gtest.h>

#include <string>

#include "router/path_scan.h"

namespace slipstream::server::detail {
namespace {

TEST(StaticPathIndex, FindsOnlyWholePaths) {
    StaticPathIndex index;
    EXPECT_EQ(index.find("/"), StaticPathIndex::kAbsent);  // empty index
    const struct {
        const char* path;
        std::uint32_t value;
    } added[] = {
        {"/", 1},    {"/hello", 2},    {"/users", 3},   {"/users/", 4},          {"/users/me", 5},       {"/a//b", 6},
        {"/abc", 7}, {"/abcdefgh", 8}, {"/abcdefg", 9}, {"/v1/things/list", 10}, {"/v1/thingz/list", 11}};
    for (const auto& a : added)
        index.add(a.path, a.value);
    EXPECT_EQ(index.size(), std::size(added));
    for (const auto& a : added)
        EXPECT_EQ(index.find(a.path), a.value) << a.path;

    const char* misses[] = {"",           "/hell", "/hello/",        "/Hello",     "/users/m",
                            "/users/mee", "/a/b",  "/abcdefgi",      "/abcdefgh/", "/v1/thingy/list",
                            "//",         "hello", "/v1/things/lisT"};
    for (const char* m : misses)
        EXPECT_EQ(index.find(m), StaticPathIndex::kAbsent) << m;
}

TEST(StaticPathIndex, KeepsTheFirstValueOfAPath) {
    StaticPathIndex index;
    index.add("/x", 1);
    index.add("/x", 2);
    EXPECT_EQ(index.size(), 1u);
    EXPECT_EQ(index.find("/x"), 1u);
}

TEST(StaticPathIndex, GrowsPastManyPaths) {
    StaticPathIndex index;
    for (std::uint32_t i = 0; i < 2000; ++i)
        index.add("/items/" + std::to_string(i) + "/detail", i);
    for (std::uint32_t i = 0; i < 2000; ++i)
        ASSERT_EQ(index.find("/items/" + std::to_string(i) + "/detail"), i) << i;
    EXPECT_EQ(index.find("/items/2000/detail"), StaticPathIndex::kAbsent);
    EXPECT_EQ(index.find("/items/1/detai"), StaticPathIndex::kAbsent);
}

TEST(PathHash, EveryByteCounts) {
    // Paths of each length class (1-3, 4-7, 8, 9-16, 17+) differing in one byte at each position.
    for (std::size_t len : {1u, 2u, 3u, 4u, 7u, 8u, 9u, 16u, 17u, 40u}) {
        std::string base(len, 'a');
        for (std::size_t i = 0; i < len; ++i) {
            std::string other = base;
            other[i] = 'b';
            EXPECT_NE(path_hash(base), path_hash(other)) << "length " << len << " byte " << i;
        }
    }
}

}  // namespace
}  // namespace slipstream::server::detail
