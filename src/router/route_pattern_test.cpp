// Tests for route pattern parsing: the parts of valid patterns and the exact registration errors.
#include "router/route_pattern.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "router/router_test_support.h"

namespace slipstream::server {
namespace {

// "lit:/users/ str:id lit:/posts" style rendering of the parts.
std::string render(const RoutePattern& p) {
    std::string s;
    for (const PatternPart& part : p.parts) {
        if (!s.empty()) s += ' ';
        if (part.is_param) {
            s.append(param_type_name(part.type)).append(":").append(part.text);
        } else {
            s.append("lit:").append(part.text);
        }
    }
    return s;
}

TEST(RoutePattern, SplitsIntoLiteralsAndParameters) {
    struct Row {
        std::string_view pattern;
        std::string_view parts;
        std::size_t params;
    };
    const Row rows[] = {
        {"/", "lit:/", 0},
        {"/users", "lit:/users", 0},
        {"/users/", "lit:/users/", 0},
        {"/a//b", "lit:/a//b", 0},
        {"/{id}", "lit:/ str:id", 1},
        {"/users/{id}", "lit:/users/ str:id", 1},
        {"/users/{id:str}/", "lit:/users/ str:id lit:/", 1},
        {"/items/{id:int}/price/{p:float}", "lit:/items/ int:id lit:/price/ float:p", 2},
        {"/o/{k:uuid}", "lit:/o/ uuid:k", 1},
        {"/files/{rest:path}", "lit:/files/ path:rest", 1},
        {"/{a}/{b}/{c}", "lit:/ str:a lit:/ str:b lit:/ str:c", 3},
        {"/{_x9}", "lit:/ str:_x9", 1},
        {"/caf\xc3\xa9/{n}", "lit:/caf\xc3\xa9/ str:n", 1},
        {"/a b/c.json", "lit:/a b/c.json", 0},
    };
    for (const Row& row : rows) {
        RoutePattern p = parse_route_pattern(row.pattern);
        EXPECT_EQ(p.text, row.pattern);
        EXPECT_EQ(render(p), row.parts) << row.pattern;
        EXPECT_EQ(p.param_count, row.params) << row.pattern;
    }
}

TEST(RoutePattern, AcceptsExactlyMaxParams) {
    std::string pattern;
    for (std::size_t i = 0; i < kMaxParams; ++i)
        pattern.append("/{p").append(std::to_string(i)).append("}");
    EXPECT_EQ(parse_route_pattern(pattern).param_count, kMaxParams);
    pattern += "/{extra}";
    try {
        (void)parse_route_pattern(pattern);
        FAIL() << "accepted " << pattern;
    } catch (const std::invalid_argument& e) {
        EXPECT_EQ(std::string(e.what()),
                  testing::cat("invalid route pattern \"", pattern, "\": more than 16 parameters at offset ",
                               std::to_string(pattern.size() - 7)));
    }
}

TEST(RoutePattern, RejectsInvalidPatternsWithPreciseMessages) {
    struct Row {
        std::string_view pattern;
        std::string_view error;  // after `invalid route pattern "<pattern>": `
    };
    const Row rows[] = {
        {"", "must start with '/'"},
        {"users", "must start with '/'"},
        {"{id}", "must start with '/'"},
        {"/users/{id", "unclosed '{' at offset 7"},
        {"/users/{", "unclosed '{' at offset 7"},
        {"/users/id}", "unmatched '}' at offset 9"},
        {"/}", "unmatched '}' at offset 1"},
        {"/{a{b}}", "'{' inside a parameter at offset 3"},
        {"/{}", "empty parameter name at offset 1"},
        {"/{:int}", "empty parameter name at offset 1"},
        {"/{1a}", "invalid parameter name '1a' at offset 1 (use letters, digits and '_', not starting with a digit)"},
        {"/{a-b}", "invalid parameter name 'a-b' at offset 1 (use letters, digits and '_', not starting with a digit)"},
        {"/{ a}", "invalid parameter name ' a' at offset 1 (use letters, digits and '_', not starting with a digit)"},
        {"/{a:integer}", "unknown parameter type 'integer' for 'a' at offset 1 (use str, int, float, uuid or path)"},
        {"/{a:}", "unknown parameter type '' for 'a' at offset 1 (use str, int, float, uuid or path)"},
        {"/{a:int:x}", "unknown parameter type 'int:x' for 'a' at offset 1 (use str, int, float, uuid or path)"},
        {"/{id}/x/{id:int}", "duplicate parameter name 'id'"},
        {"/a/x{y}", "a parameter must start a path segment (right after '/') at offset 4"},
        {"/a/{y}x", "parameter 'y' must end its path segment (at '/' or the end) at offset 6"},
        {"/{a}{b}", "parameter 'a' must end its path segment (at '/' or the end) at offset 4"},
        {"/{a}.json", "parameter 'a' must end its path segment (at '/' or the end) at offset 4"},
        {"/f/{p:path}/edit", "path parameter 'p' must end the pattern at offset 11"},
        {"/f/{p:path}/", "path parameter 'p' must end the pattern at offset 11"},
    };
    for (const Row& row : rows) {
        try {
            (void)parse_route_pattern(row.pattern);
            ADD_FAILURE() << "accepted " << row.pattern;
        } catch (const std::invalid_argument& e) {
            EXPECT_EQ(std::string(e.what()), testing::cat("invalid route pattern \"", row.pattern, "\": ", row.error));
        }
    }
}

}  // namespace
}  // namespace slipstream::server
