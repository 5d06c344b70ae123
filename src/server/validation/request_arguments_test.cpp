// Request::cookie() and Request::arguments() over a RequestState.
#include <gtest/gtest.h>

#include <vector>

#include "server/core/request_state.h"
#include "server/validation/route_validator.h"
#include "slipstream/request.h"

namespace slipstream {
namespace {

TEST(RequestCookie, FirstMatchAcrossHeaders) {
    detail::RequestState st;
    std::vector<http::h1::Header> headers = {
        {"Host", "x"}, {"Cookie", "a=1; session = abc ;flag"}, {"cookie", "session=second; b=2"}};
    st.headers = headers;
    Request r(&st);
    EXPECT_EQ(r.cookie("a"), "1");
    EXPECT_EQ(r.cookie("session"), "abc");
    EXPECT_EQ(r.cookie("b"), "2");
    EXPECT_EQ(r.cookie("flag"), std::nullopt);
    EXPECT_EQ(r.cookie("zz"), std::nullopt);
}

TEST(RequestArguments, NullWithoutSpecThenTheValidatedObject) {
    detail::RequestState st;
    st.query = "n=5";
    Request r(&st);
    EXPECT_TRUE(r.arguments().is_null());
    RouteSpec spec;
    ParamSpec p;
    p.name = "n";
    p.schema_json = R"({"type":"integer"})";
    spec.params.push_back(p);
    auto v = server::RouteValidator::compile(spec);
    std::string error;
    ASSERT_TRUE(v->validate(st, &error)) << error;
    EXPECT_EQ(r.arguments().kind(), JsonView::Kind::kObject);
    EXPECT_EQ(r.arguments().get("n").as_int(), 5);
}

}  // namespace
}  // namespace slipstream
