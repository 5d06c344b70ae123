// Router tests: matching basics, 404/405/Allow, implicit HEAD, OPTIONS, registration errors, limits.
#include "router/router.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "router/router_test_support.h"

namespace slipstream::server {
namespace {

using testing::add_all;
using testing::Case;
using testing::cat;
using testing::describe;
constexpr Method GET = Method::kGet, HEAD = Method::kHead, POST = Method::kPost, PUT = Method::kPut,
                 DELETE = Method::kDelete, OPTIONS = Method::kOptions, PATCH = Method::kPatch, OTHER = Method::kOther;

void run_cases(const Router& router, std::initializer_list<Case> cases) {
    for (const Case& c : cases) {
        EXPECT_EQ(describe(router, c.method, c.path), c.expected) << method_name(c.method) << " " << c.path;
    }
}

TEST(Router, MatchesStaticParamTypedAndCatchAll) {
    Router r;
    add_all(r, {{GET, "/", 1},
                {GET, "/users", 2},
                {GET, "/users/", 3},
                {GET, "/users/{id}", 4},
                {GET, "/users/{id}/posts/{post}", 5},
                {GET, "/items/{n:int}", 6},
                {GET, "/prices/{p:float}", 7},
                {GET, "/objects/{key:uuid}", 8},
                {GET, "/files/{path:path}", 9},
                {GET, "/a//b", 10}});
    run_cases(r, {
                     {GET, "/", "1 /"},
                     {GET, "/users", "2 /users"},
                     {GET, "/users/", "3 /users/"},  // trailing slash is its own route
                     {GET, "/users/42", "4 /users/{id} id=42"},
                     {GET, "/users/a.b-c~", "4 /users/{id} id=a.b-c~"},
                     {GET, "/users/42/", "404"},
                     {GET, "/users/42/posts/7", "5 /users/{id}/posts/{post} id=42 post=7"},
                     {GET, "/users/42/posts", "404"},
                     {GET, "/users/42/posts/", "404"},  // a parameter needs a non-empty segment
                     {GET, "/users//posts/7", "404"},
                     {GET, "/items/-12", "6 /items/{n:int} n=-12"},
                     {GET, "/items/abc", "404"},
                     {GET, "/items/99999999999999999999", "404"},
                     {GET, "/prices/3.25", "7 /prices/{p:float} p=3.25"},
                     {GET, "/prices/3.", "404"},
                     {GET, "/objects/123e4567-e89b-12d3-a456-426614174000",
                      "8 /objects/{key:uuid} key=123e4567-e89b-12d3-a456-426614174000"},
                     {GET, "/objects/123e4567", "404"},
                     {GET, "/files/", "9 /files/{path:path} path="},  // Starlette's ".*": empty matches
                     {GET, "/files/a", "9 /files/{path:path} path=a"},
                     {GET, "/files/a/b/../c/", "9 /files/{path:path} path=a/b/../c/"},
                     {GET, "/files", "404"},
                     {GET, "/a//b", "10 /a//b"},
                     {GET, "/a/b", "404"},
                     {GET, "", "404"},
                     {GET, "*", "404"},
                     {GET, "users", "404"},
                     {GET, "/Users", "404"},  // case-sensitive
                 });
}

TEST(Router, TypedValuesArePreParsed) {
    Router r;
    add_all(r, {{GET, "/i/{n:int}/f/{x:float}/s/{s}", 1}});
    RouteMatch m;
    ASSERT_EQ(r.match(GET, "/i/-9223372036854775808/f/-0.5/s/z", &m), MatchOutcome::kFound);
    ASSERT_EQ(m.param_count, 3u);
    EXPECT_EQ(m.params[0].type, ParamType::kInt);
    EXPECT_EQ(m.params[0].int_value, INT64_MIN);
    EXPECT_EQ(m.params[1].type, ParamType::kFloat);
    EXPECT_EQ(m.params[1].float_value, -0.5);
    EXPECT_EQ(m.params[2].type, ParamType::kStr);
    ASSERT_NE(m.find("x"), nullptr);
    EXPECT_EQ(m.find("x")->value, "-0.5");
    EXPECT_EQ(m.find("nope"), nullptr);
}

TEST(Router, ParamValuesPointIntoThePath) {
    Router r;
    add_all(r, {{GET, "/u/{id}/{rest:path}", 1}});
    std::string path = "/u/abc/x/y";
    RouteMatch m;
    ASSERT_EQ(r.match(GET, path, &m), MatchOutcome::kFound);
    EXPECT_EQ(m.params[0].value.data(), path.data() + 3);
    EXPECT_EQ(m.params[1].value.data(), path.data() + 7);
    EXPECT_EQ(m.params[1].type, ParamType::kPath);
}

TEST(Router, DistinguishesNotFoundFromMethodNotAllowed) {
    Router r;
    add_all(r, {{GET, "/users", 1},
                {POST, "/users", 2},
                {DELETE, "/users/{id}", 3},
                {PUT, "/users/{id}", 4},
                {PATCH, "/users/me", 5},
                {POST, "/upload/{p:path}", 6}});
    run_cases(r, {
                     {PUT, "/users", "405 GET, HEAD, POST, OPTIONS"},
                     {DELETE, "/users", "405 GET, HEAD, POST, OPTIONS"},
                     {OTHER, "/users", "405 GET, HEAD, POST, OPTIONS"},
                     {GET, "/users/7", "405 PUT, DELETE, OPTIONS"},
                     // "/users/me" matches both patterns: Allow is their union, and each method is served.
                     {GET, "/users/me", "405 PUT, DELETE, PATCH, OPTIONS"},
                     {PATCH, "/users/me", "5 /users/me"},
                     {PUT, "/users/me", "4 /users/{id} id=me"},
                     {GET, "/upload/x", "405 POST, OPTIONS"},
                     {GET, "/nothing", "404"},
                     {OTHER, "/nothing", "404"},
                     {PATCH, "/users/7/x", "404"},
                 });
}

TEST(Router, HeadFallsBackToGet) {
    Router r;
    add_all(r,
            {{GET, "/a", 1}, {GET, "/b", 2}, {HEAD, "/b", 3}, {POST, "/c", 4}, {GET, "/d/me", 5}, {HEAD, "/d/{x}", 6}});
    run_cases(r, {
                     {HEAD, "/a", "1 /a head"},
                     {GET, "/a", "1 /a"},
                     {HEAD, "/b", "3 /b"},  // an explicit HEAD route wins over GET
                     {GET, "/b", "2 /b"},
                     {HEAD, "/c", "405 POST, OPTIONS"},
                     // The literal pattern serves HEAD through its GET before the parameter's HEAD.
                     {HEAD, "/d/me", "5 /d/me head"},
                     {HEAD, "/d/you", "6 /d/{x} x=you"},
                     {GET, "/d/you", "405 HEAD, OPTIONS"},
                 });
}

TEST(Router, OptionsReportsAllowedUnlessRegistered) {
    Router r;
    add_all(r, {{GET, "/a", 1}, {POST, "/a", 2}, {OPTIONS, "/b", 3}, {PUT, "/b", 4}, {DELETE, "/c/{x}", 5}});
    run_cases(r, {
                     {OPTIONS, "/a", "options GET, HEAD, POST, OPTIONS"},
                     {OPTIONS, "/b", "3 /b"},
                     {GET, "/b", "405 PUT, OPTIONS"},
                     {OPTIONS, "/c/1", "options DELETE, OPTIONS"},
                     {OPTIONS, "/zzz", "404"},
                 });
}

TEST(Router, RejectsConflictsAndUnknownMethods) {
    Router r;
    add_all(r, {{GET, "/users/{id}", 1}, {GET, "/f/{p:path}", 2}, {GET, "/n/{n:int}", 3}});
    struct Row {
        Method method;
        std::string_view pattern;
        std::string_view error;
    };
    const Row rows[] = {
        {GET, "/users/{id}", "route conflict: GET /users/{id} is equivalent to the registered GET /users/{id}"},
        {GET, "/users/{uid}", "route conflict: GET /users/{uid} is equivalent to the registered GET /users/{id}"},
        {GET, "/users/{uid:str}",
         "route conflict: GET /users/{uid:str} is equivalent to the registered GET /users/{id}"},
        {GET, "/f/{q:path}", "route conflict: GET /f/{q:path} is equivalent to the registered GET /f/{p:path}"},
        {GET, "/n/{m:int}", "route conflict: GET /n/{m:int} is equivalent to the registered GET /n/{n:int}"},
        {OTHER, "/x", "cannot register route \"/x\" for an unknown method"},
        {GET, "/x/{", "invalid route pattern \"/x/{\": unclosed '{' at offset 3"},
    };
    for (const Row& row : rows) {
        try {
            r.add(row.method, row.pattern, 99);
            ADD_FAILURE() << "accepted " << row.pattern;
        } catch (const std::invalid_argument& e) {
            EXPECT_EQ(std::string(e.what()), row.error);
        }
    }
    // Not conflicts: another method, another type, a trailing slash.
    add_all(r, {{POST, "/users/{uid}", 4}, {GET, "/users/{id:int}", 5}, {GET, "/users/{id}/", 6}});
    ASSERT_EQ(r.routes().size(), 6u);
    run_cases(r, {{POST, "/users/x", "4 /users/{uid} uid=x"},
                  {GET, "/users/x", "1 /users/{id} id=x"},
                  {GET, "/users/1", "5 /users/{id:int} id=1"},
                  {GET, "/users/x/", "6 /users/{id}/ id=x"}});
}

TEST(Router, ListsRoutesInRegistrationOrder) {
    Router r;
    add_all(r, {{GET, "/b/{id:int}", 10}, {POST, "/a", 11}, {GET, "/b/{id:int}/{rest:path}", 12}});
    const auto& routes = r.routes();
    ASSERT_EQ(routes.size(), 3u);
    EXPECT_EQ(routes[0].method, GET);
    EXPECT_EQ(routes[0].pattern.text, "/b/{id:int}");
    EXPECT_EQ(routes[0].id, 10u);
    EXPECT_EQ(routes[1].method, POST);
    EXPECT_EQ(routes[1].pattern.text, "/a");
    EXPECT_EQ(routes[2].pattern.param_count, 2u);
    EXPECT_EQ(routes[2].pattern.parts[3].text, "rest");
    EXPECT_EQ(routes[2].pattern.parts[3].type, ParamType::kPath);
}

TEST(Router, CapturesMaxParams) {
    Router r;
    std::string pattern, path, expected;
    for (std::size_t i = 0; i < kMaxParams; ++i) {
        pattern += cat("/{p", std::to_string(i), "}");
        path += cat("/v", std::to_string(i));
    }
    r.add(GET, pattern, 1);
    expected = cat("1 ", pattern);
    for (std::size_t i = 0; i < kMaxParams; ++i)
        expected += cat(" p", std::to_string(i), "=v", std::to_string(i));
    EXPECT_EQ(describe(r, GET, path), expected);
    EXPECT_EQ(describe(r, GET, cat(path, "/more")), "404");
}

TEST(Router, HandlesLongPathsAndUnicodeBytes) {
    Router r;
    const std::string long_literal = cat("/", std::string(5000, 'x'));
    add_all(r, {{GET, long_literal, 1},
                {GET, "/caf\xc3\xa9/{name}", 2},
                {GET, "/\xe6\x97\xa5\xe6\x9c\xac/{p:path}", 3},
                {GET, "/u/{id}", 4}});
    std::string long_value(100000, 'y');
    run_cases(r, {
                     {GET, "/caf\xc3\xa9/\xf0\x9f\x98\x80", "2 /caf\xc3\xa9/{name} name=\xf0\x9f\x98\x80"},
                     {GET, "/cafe/x", "404"},
                     {GET, "/caf\xc3", "404"},
                     {GET, "/\xe6\x97\xa5\xe6\x9c\xac/a/\xff", "3 /\xe6\x97\xa5\xe6\x9c\xac/{p:path} p=a/\xff"},
                     {GET, std::string_view("/u/a\0b", 6), std::string_view("4 /u/{id} id=a\0b", 16)},
                 });
    EXPECT_EQ(describe(r, GET, long_literal), cat("1 ", long_literal));
    EXPECT_EQ(describe(r, GET, cat(long_literal, "x")), "404");
    EXPECT_EQ(describe(r, GET, long_literal.substr(0, 4999)), "404");
    EXPECT_EQ(describe(r, GET, cat("/u/", long_value)), cat("4 /u/{id} id=", long_value));
    std::string many_slashes(100000, '/');
    EXPECT_EQ(describe(r, GET, many_slashes), "404");
}

TEST(Router, ManyRoutesAllResolve) {
    Router r;
    RouteId id = 0;
    for (int res = 0; res < 100; ++res) {
        std::string base = cat("/v1/res", std::to_string(res));
        std::string sub = cat("/sub", std::to_string(res % 7));
        r.add(GET, base, id++);
        r.add(POST, base, id++);
        r.add(GET, cat(base, "/{id}"), id++);
        r.add(GET, cat(base, "/{id}", sub), id++);
        r.add(GET, cat(base, "/{id:int}", sub, "/{sub_id}"), id++);
    }
    ASSERT_EQ(r.routes().size(), 500u);
    for (int res = 0; res < 100; ++res) {
        std::string base = cat("/v1/res", std::to_string(res));
        std::string sub = cat("/sub", std::to_string(res % 7));
        auto first = static_cast<RouteId>(res * 5);
        EXPECT_EQ(describe(r, GET, base), cat(std::to_string(first), " ", base));
        EXPECT_EQ(describe(r, POST, base), cat(std::to_string(first + 1), " ", base));
        EXPECT_EQ(describe(r, GET, cat(base, "/k")), cat(std::to_string(first + 2), " ", base, "/{id} id=k"));
        EXPECT_EQ(describe(r, GET, cat(base, "/k", sub)),
                  cat(std::to_string(first + 3), " ", base, "/{id}", sub, " id=k"));
        EXPECT_EQ(describe(r, GET, cat(base, "/5", sub, "/z")),
                  cat(std::to_string(first + 4), " ", base, "/{id:int}", sub, "/{sub_id} id=5 sub_id=z"));
        EXPECT_EQ(describe(r, GET, cat(base, "/k", sub, "/z")), "404");
        EXPECT_EQ(describe(r, PUT, base), "405 GET, HEAD, POST, OPTIONS");
    }
    EXPECT_EQ(describe(r, GET, "/v1/res100"), "404");
    EXPECT_EQ(describe(r, GET, "/v1/res"), "404");
}

}  // namespace
}  // namespace slipstream::server
