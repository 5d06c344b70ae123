// CompiledSchemaCache: a repeated text is compiled once, the least recently used entry leaves first, errors stay out.
#include "agent/structured/schema_cache.h"

#include <gtest/gtest.h>

#include <string>

namespace slipstream::agent::structured {
namespace {

TEST(CompiledSchemaCacheTest, ARepeatedSchemaIsCompiledOnce) {
    CompiledSchemaCache cache(2);
    auto a = cache.get(R"({"type":"string"})");
    auto b = cache.get(R"({"type":"string"})");
    ASSERT_TRUE(a.is_ok() && b.is_ok());
    EXPECT_EQ(a->get(), b->get());
    EXPECT_EQ(cache.hits(), 1u);
    auto c = cache.get(R"({"type": "string"})");  // another text (even if the same schema): compiled anew
    ASSERT_TRUE(c.is_ok());
    EXPECT_NE(a->get(), c->get());
    EXPECT_TRUE((*a)->accepts(R"("x")"));
    EXPECT_FALSE((*a)->accepts("1"));
}

TEST(CompiledSchemaCacheTest, TheLeastRecentlyUsedLeavesFirst) {
    CompiledSchemaCache cache(2);
    auto one = cache.get(R"({"const":1})");
    auto two = cache.get(R"({"const":2})");
    ASSERT_TRUE(cache.get(R"({"const":1})").is_ok());  // 1 is now the most recent
    ASSERT_TRUE(cache.get(R"({"const":3})").is_ok());  // 2 leaves
    EXPECT_EQ(cache.size(), 2u);
    EXPECT_EQ(cache.get(R"({"const":1})")->get(), one->get());
    EXPECT_NE(cache.get(R"({"const":2})")->get(), two->get());
}

TEST(CompiledSchemaCacheTest, ErrorsAreNotKept) {
    CompiledSchemaCache cache;
    EXPECT_FALSE(cache.get(R"({"type":)").is_ok());
    EXPECT_FALSE(cache.get(R"({"type":"nothing"})").is_ok());
    EXPECT_EQ(cache.size(), 0u);
    CompiledSchemaCache none(0);
    ASSERT_TRUE(none.get("true").is_ok());
    EXPECT_EQ(none.size(), 0u);
}

}  // namespace
}  // namespace slipstream::agent::structured
