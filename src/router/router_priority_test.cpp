// Router tests for match priority (literal > int > float > uuid > str > path) and backtracking.
#include <gtest/gtest.h>

#include "router/router.h"
#include "router/router_test_support.h"

namespace slipstream::server {
namespace {

using testing::add_all;
using testing::Case;
using testing::describe;
constexpr Method GET = Method::kGet, POST = Method::kPost;

void run_cases(const Router& router, std::initializer_list<Case> cases) {
    for (const Case& c : cases) {
        EXPECT_EQ(describe(router, c.method, c.path), c.expected) << method_name(c.method) << " " << c.path;
    }
}

TEST(RouterPriority, LiteralBeatsTypedBeatsPlainBeatsCatchAll) {
    Router r;
    // Registered lowest priority first: order of registration must not matter.
    add_all(r, {{GET, "/x/{rest:path}", 1},
                {GET, "/x/{s}", 2},
                {GET, "/x/{u:uuid}", 3},
                {GET, "/x/{f:float}", 4},
                {GET, "/x/{i:int}", 5},
                {GET, "/x/me", 6}});
    run_cases(
        r, {
               {GET, "/x/me", "6 /x/me"},
               {GET, "/x/12", "5 /x/{i:int} i=12"},
               {GET, "/x/1.5", "4 /x/{f:float} f=1.5"},
               {GET, "/x/123e4567-e89b-12d3-a456-426614174000", "3 /x/{u:uuid} u=123e4567-e89b-12d3-a456-426614174000"},
               {GET, "/x/mex", "2 /x/{s} s=mex"},
               {GET, "/x/m", "2 /x/{s} s=m"},
               {GET, "/x/", "1 /x/{rest:path} rest="},
               {GET, "/x/me/too", "1 /x/{rest:path} rest=me/too"},
               {GET, "/x/12/", "1 /x/{rest:path} rest=12/"},
           });
}

TEST(RouterPriority, BacktracksWhenADeeperMatchFails) {
    Router r;
    add_all(r, {{GET, "/users/me", 1},
                {GET, "/users/{id}", 2},
                {GET, "/users/me/settings", 3},
                {GET, "/users/{id}/posts", 4},
                {GET, "/users/{id:int}/likes", 5},
                {GET, "/users/{id}/{rest:path}", 6},
                {GET, "/static/{p:path}", 7},
                {GET, "/static/css/site.css", 8}});
    run_cases(r, {
                     {GET, "/users/me", "1 /users/me"},
                     {GET, "/users/me/settings", "3 /users/me/settings"},
                     // "/users/me/..." fails below the literal, so {id} takes "me".
                     {GET, "/users/me/posts", "4 /users/{id}/posts id=me"},
                     {GET, "/users/7/posts", "4 /users/{id}/posts id=7"},
                     // {id:int} fails below, so plain {id}, then its catch-all, takes it.
                     {GET, "/users/7/likes", "5 /users/{id:int}/likes id=7"},
                     {GET, "/users/x/likes", "6 /users/{id}/{rest:path} id=x rest=likes"},
                     {GET, "/users/me/settings/x", "6 /users/{id}/{rest:path} id=me rest=settings/x"},
                     {GET, "/users/me/", "6 /users/{id}/{rest:path} id=me rest="},
                     {GET, "/users/mex", "2 /users/{id} id=mex"},
                     {GET, "/static/css/site.css", "8 /static/css/site.css"},
                     {GET, "/static/css/site.cs", "7 /static/{p:path} p=css/site.cs"},
                     {GET, "/static/css/site.css2", "7 /static/{p:path} p=css/site.css2"},
                 });
}

TEST(RouterPriority, MethodDecidesAmongMatchingPatterns) {
    Router r;
    add_all(r, {{GET, "/users/me", 1},
                {POST, "/users/{id}", 2},
                {GET, "/users/{id}", 3},
                {POST, "/f/{p:path}", 4},
                {GET, "/f/a/{x}", 5}});
    run_cases(r, {
                     {GET, "/users/me", "1 /users/me"},
                     // The literal pattern has no POST: the parameter pattern serves it (as Starlette would).
                     {POST, "/users/me", "2 /users/{id} id=me"},
                     {POST, "/f/a/b", "4 /f/{p:path} p=a/b"},
                     {GET, "/f/a/b", "5 /f/a/{x} x=b"},
                 });
}

TEST(RouterPriority, SplitsLiteralEdgesWithoutLosingRoutes) {
    Router r;
    add_all(r, {{GET, "/abc", 1},
                {GET, "/ab", 2},
                {GET, "/a", 3},
                {GET, "/abd", 4},
                {GET, "/b", 5},
                {GET, "/ab/{x}", 6},
                {GET, "/abcdef", 7},
                {GET, "/a/{p:path}", 8}});
    run_cases(r, {
                     {GET, "/abc", "1 /abc"},
                     {GET, "/ab", "2 /ab"},
                     {GET, "/a", "3 /a"},
                     {GET, "/abd", "4 /abd"},
                     {GET, "/b", "5 /b"},
                     {GET, "/ab/q", "6 /ab/{x} x=q"},
                     {GET, "/abcdef", "7 /abcdef"},
                     {GET, "/abcde", "404"},
                     {GET, "/a/", "8 /a/{p:path} p="},
                     {GET, "/abe", "404"},
                     {GET, "/", "404"},
                     {POST, "/abcdef", "405 GET, HEAD, OPTIONS"},
                 });
}

TEST(RouterPriority, SplitsCompressedEdgesAtSegmentBoundaries) {
    Router r;
    add_all(r, {{GET, "/a/b/c", 1},
                {GET, "/a/b", 2},
                {GET, "/a", 3},
                {GET, "/a/bc", 4},
                {GET, "/a/b/c/d", 5},
                {GET, "/a/b/{x}/e", 6}});
    run_cases(r, {
                     {GET, "/a/b/c", "1 /a/b/c"},
                     {GET, "/a/b", "2 /a/b"},
                     {GET, "/a", "3 /a"},
                     {GET, "/a/bc", "4 /a/bc"},
                     {GET, "/a/b/c/d", "5 /a/b/c/d"},
                     {GET, "/a/b/c/e", "6 /a/b/{x}/e x=c"},
                     {GET, "/a/b/cd", "404"},
                     {GET, "/a/b/", "404"},
                     {GET, "/ab", "404"},
                     {GET, "/a/", "404"},
                 });
}

TEST(RouterPriority, WideNodesFindTokensSharingLongPrefixes) {
    Router r;
    // Enough siblings for a hash-table node; several share their first eight bytes.
    add_all(r, {{GET, "/notifications", 1},
                {GET, "/notification_settings", 2},
                {GET, "/notifica", 3},
                {GET, "/notificationsX/{a}", 4},
                {GET, "/notificat", 5},
                {GET, "/n", 6},
                {GET, "/", 7},
                {GET, "/{other}", 8}});
    run_cases(r, {
                     {GET, "/notifications", "1 /notifications"},
                     {GET, "/notification_settings", "2 /notification_settings"},
                     {GET, "/notifica", "3 /notifica"},
                     {GET, "/notificationsX/q", "4 /notificationsX/{a} a=q"},
                     {GET, "/notificat", "5 /notificat"},
                     {GET, "/n", "6 /n"},
                     {GET, "/", "7 /"},
                     {GET, "/notification", "8 /{other} other=notification"},
                     {GET, "/notificationsX", "8 /{other} other=notificationsX"},
                     {GET, "/notifications/", "404"},
                 });
}

TEST(RouterPriority, TypedSiblingsFallThroughToEachOther) {
    Router r;
    add_all(r, {{GET, "/n/{i:int}/a", 1}, {GET, "/n/{f:float}/b", 2}, {GET, "/n/{s}/c", 3}});
    run_cases(r, {
                     {GET, "/n/5/a", "1 /n/{i:int}/a i=5"},
                     {GET, "/n/5/b", "2 /n/{f:float}/b f=5"},
                     {GET, "/n/5/c", "3 /n/{s}/c s=5"},
                     {GET, "/n/5.5/a", "404"},
                     {GET, "/n/5/d", "404"},
                 });
}

}  // namespace
}  // namespace slipstream::server
