// UrlencodedParser and HeaderValue: decoding, splits, limits (table-driven).
#include "http/multipart/urlencoded_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "http/multipart/header_value.h"

namespace slipstream::http::multipart {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

class Collector : public FieldSink {
  public:
    base::Status on_field(std::string_view name, std::string_view value) override {
        pairs.emplace_back(name, value);
        return base::Status::ok();
    }
    Pairs pairs;
};

struct Outcome {
    Pairs pairs;
    FormError error;
};

Outcome parse(std::string_view body, std::size_t split, const FormLimits& limits = {}) {
    Collector sink;
    UrlencodedParser parser(limits, sink);
    if (parser.feed(body.substr(0, split)).is_ok() && parser.feed(body.substr(split)).is_ok())
        parser.finish().ignore_error();
    return {sink.pairs, parser.error()};
}

TEST(UrlencodedParser, Decoding) {
    const std::pair<std::string, Pairs> cases[] = {
        {"a=1&b=2", {{"a", "1"}, {"b", "2"}}},
        {"a=1&&b=2&", {{"a", "1"}, {"b", "2"}}},
        {"&&", {}},
        {"", {}},
        {"name", {{"name", ""}}},
        {"=v", {{"", "v"}}},
        {"=", {{"", ""}}},
        {"a=b=c", {{"a", "b=c"}}},
        {"q=hello+world%21&x=%e2%82%AC", {{"q", "hello world!"}, {"x", "\xE2\x82\xAC"}}},
        {"bad=%zz%4&k%20ey=%", {{"bad", "%zz%4"}, {"k ey", "%"}}},
        {"a=1&a=2", {{"a", "1"}, {"a", "2"}}},
    };
    for (const auto& [body, pairs] : cases) {
        for (std::size_t split = 0; split <= body.size(); ++split) {
            Outcome r = parse(body, split);
            EXPECT_TRUE(r.error.ok()) << body;
            EXPECT_EQ(r.pairs, pairs) << body << " split " << split;
        }
    }
}

TEST(UrlencodedParser, Limits) {
    FormLimits limits;
    limits.max_fields = 2;
    limits.max_field_size = 1024;
    const std::string at_limit = "k=" + std::string(1023, 'v');
    struct LimitCase {
        std::string body;
        FormErrorKind error;
        std::string message;
    };
    const LimitCase cases[] = {
        {"a=1&b=2", FormErrorKind::kNone, ""},
        {"a=1&b=2&c=3", FormErrorKind::kTooManyFields, "Too many fields. Maximum number of fields is 2."},
        {"a=1&b=2&&", FormErrorKind::kNone, ""},
        {at_limit, FormErrorKind::kNone, ""},
        {at_limit + "v", FormErrorKind::kFieldTooLarge, "Field exceeded maximum size of 1KB."},
        {std::string(1025, 'n'), FormErrorKind::kFieldTooLarge, "Field exceeded maximum size of 1KB."},
    };
    for (const LimitCase& c : cases) {
        for (std::size_t split : {std::size_t{0}, std::size_t{1}, c.body.size() / 2, c.body.size()}) {
            Outcome r = parse(c.body, split, limits);
            EXPECT_EQ(r.error.kind, c.error) << c.body.substr(0, 20) << " split " << split;
            EXPECT_EQ(r.error.message, c.message);
        }
    }
}

TEST(UrlencodedParser, ErrorsAreSticky) {
    Collector sink;
    FormLimits limits;
    limits.max_fields = 0;
    UrlencodedParser parser(limits, sink);
    EXPECT_TRUE(parser.feed("a=1&").is_out_of_range());
    EXPECT_TRUE(parser.feed("b=1").is_out_of_range());
    EXPECT_TRUE(parser.finish().is_out_of_range());
    EXPECT_TRUE(sink.pairs.empty());
}

TEST(HeaderValue, Table) {
    struct Case {
        std::string text;
        std::string token;
        std::vector<std::pair<std::string, std::string>> params;
    };
    const Case cases[] = {
        {"form-data; name=\"a\"", "form-data", {{"name", "a"}}},
        {" Form-Data ;NAME=a ; filename=\"b c\"", "form-data", {{"name", "a"}, {"filename", "b c"}}},
        {"form-data; name=\"a\\\\b\\\"c\"", "form-data", {{"name", "a\\b\"c"}}},
        {"form-data; name=\"semi;colon\"; x=1", "form-data", {{"name", "semi;colon"}, {"x", "1"}}},
        {"form-data; flag; name=a", "form-data", {{"name", "a"}}},
        {"form-data; name=a; name=b", "form-data", {{"name", "b"}}},
        {"form-data; filename*=utf-8''a%20b; filename=plain", "form-data", {{"filename", "a b"}}},
        {"form-data; filename=plain; filename*=utf-8'en'%E2%82%AC", "form-data", {{"filename", "\xE2\x82\xAC"}}},
        {"form-data; name=\"unterminated", "form-data", {{"name", "unterminated"}}},
        {"text/plain", "text/plain", {}},
        {"", "", {}},
    };
    for (const Case& c : cases) {
        HeaderValue v = parse_header_value(c.text);
        EXPECT_EQ(v.token, c.token) << c.text;
        EXPECT_EQ(v.params, c.params) << c.text;
    }
    EXPECT_EQ(*parse_header_value("a; b=1").find("b"), "1");
    EXPECT_EQ(parse_header_value("a; b=1").find("c"), nullptr);
}

}  // namespace
}  // namespace slipstream::http::multipart
