// JsonView over parsed json::Value trees: kinds, accessors, wrong-type zero values, null views.
#include "slipstream/json_view.h"

#include <gtest/gtest.h>

#include "base/arena.h"
#include "json/parse.h"
#include "server/validation/json_node.h"

namespace slipstream {
namespace {

TEST(JsonView, ReadsATree) {
    base::Arena arena;
    auto parsed = json::parse(R"({"a":1,"b":[true,"x",2.5],"c":null,"d":18446744073709551615,"e":-3})", arena);
    ASSERT_TRUE(parsed.is_ok());
    JsonView v = detail::view_of(*parsed);
    EXPECT_EQ(v.kind(), JsonView::Kind::kObject);
    EXPECT_EQ(v.size(), 5u);
    EXPECT_EQ(v.get("a").as_int(), 1);
    EXPECT_EQ(v.get("a").as_double(), 1.0);
    EXPECT_EQ(v.get("b").size(), 3u);
    EXPECT_TRUE(v.get("b").at(0).as_bool());
    EXPECT_EQ(v.get("b").at(1).as_string(), "x");
    EXPECT_EQ(v.get("b").at(2).as_double(), 2.5);
    EXPECT_TRUE(v.get("b").at(3).is_null());
    EXPECT_TRUE(v.has("c"));
    EXPECT_TRUE(v.get("c").is_null());
    EXPECT_FALSE(v.has("zz"));
    EXPECT_TRUE(v.get("zz").is_null());
    EXPECT_EQ(v.get("d").kind(), JsonView::Kind::kUint);
    EXPECT_EQ(v.get("d").as_uint(), 18446744073709551615u);
    EXPECT_EQ(v.get("e").as_uint(), 0u);
    EXPECT_EQ(v.member(1).first, "b");
    EXPECT_EQ(v.member(9).first, "");
    // Wrong types give zero values.
    EXPECT_EQ(v.get("b").as_string(), "");
    EXPECT_EQ(v.get("b").at(1).as_int(), 0);
    EXPECT_EQ(v.get("a").size(), 0u);
}

TEST(JsonView, DefaultIsNull) {
    JsonView v;
    EXPECT_TRUE(v.is_null());
    EXPECT_EQ(v.size(), 0u);
    EXPECT_FALSE(v.has("a"));
    EXPECT_TRUE(v.at(0).is_null());
}

}  // namespace
}  // namespace slipstream
