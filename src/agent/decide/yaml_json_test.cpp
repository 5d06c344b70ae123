// yaml_to_json(): core-schema scalars, nesting, and every refusal with its line and column.
#include "agent/decide/yaml_json.h"

#include <gtest/gtest.h>

namespace slipstream::agent::decide {
namespace {

std::string json_of(std::string_view yaml) {
    base::Result<std::string> r = yaml_to_json(yaml);
    return r.is_ok() ? r.value() : "error: " + r.status().message();
}

TEST(YamlJson, CoreSchemaScalarsAndCollections) {
    if (!yaml_supported()) GTEST_SKIP() << "built without libyaml";
    EXPECT_EQ(json_of("a: 1\nb: -2.5\nc: true\nd: ~\ne: text\nf: '7'\ng: \"yes\"\nh: 0x1f\ni: 0o17\nj: 1e3\nk:\n"),
              R"({"a":1,"b":-2.5,"c":true,"d":null,"e":"text","f":"7","g":"yes","h":31,"i":15,"j":1000.0,"k":null})");
    EXPECT_EQ(json_of("actions:\n  - id: a\n    features: {cost: 2}\n  - id: b\nmode: frozen\n"),
              R"({"actions":[{"id":"a","features":{"cost":2}},{"id":"b"}],"mode":"frozen"})");
    EXPECT_EQ(json_of("[1, [2, {x: False}], !!str 3, +4, .5]"), R"([1,[2,{"x":false}],"3",4,0.5])");
    EXPECT_EQ(json_of("---\nk: v\n...\n"), R"({"k":"v"})");
    EXPECT_EQ(json_of("1: one"), R"({"1":"one"})");
    EXPECT_EQ(json_of("s: \"line\\nbreak \\u00e9\""), "{\"s\":\"line\\nbreak \xc3\xa9\"}");
}

TEST(YamlJson, RefusalsNameTheLineAndColumn) {
    if (!yaml_supported()) GTEST_SKIP() << "built without libyaml";
    struct Case {
        const char* yaml;
        std::size_t line, column;
        const char* message;
    };
    const Case cases[] = {
        {"a: 1\nb: [\n", 3, 1, "did not find expected node content"},
        {"a: &x [1]\nb: *x\n", 2, 4, "aliases (*name) are not supported"},
        {"a: 1\n---\nb: 2\n", 2, 1, "one YAML document is expected"},
        {"a: .inf\n", 1, 4, "infinities and NaN are not JSON numbers"},
        {"? [1]\n: x\n", 1, 3, "mapping keys must be scalars"},
        {"", 1, 1, "the document is empty"},
        {"a: 1e999\n", 1, 4, "too large"},
    };
    for (const Case& c : cases) {
        YamlMark mark;
        base::Result<std::string> r = yaml_to_json(c.yaml, 64, &mark);
        ASSERT_FALSE(r.is_ok()) << c.yaml;
        EXPECT_NE(r.status().message().find(c.message), std::string::npos) << r.status().message();
        EXPECT_EQ(mark.line, c.line) << c.yaml;
        EXPECT_EQ(mark.column, c.column) << c.yaml;
    }
    std::string deep;
    for (int i = 0; i < 70; ++i)
        deep += "[";
    YamlMark mark;
    base::Result<std::string> r = yaml_to_json(deep, 64, &mark);
    ASSERT_FALSE(r.is_ok());
    EXPECT_NE(r.status().message().find("nests deeper than 64"), std::string::npos);
    EXPECT_EQ(mark.column, 65u);
}

}  // namespace
}  // namespace slipstream::agent::decide
