// extract_credentials: header field lists in, credential kind and value out.
#include "policy/auth/credentials.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace slipstream::policy::auth {
namespace {

using http::h1::Header;

struct Case {
    std::string name;
    std::vector<Header> headers;
    CredentialKind kind;
    std::string_view value;
    std::string_view api_key_header = kDefaultApiKeyHeader;
};

TEST(CredentialsTest, ExtractsTable) {
    const std::vector<Case> cases = {
        {"nothing", {}, CredentialKind::kNone, ""},
        {"unrelated fields", {{"Host", "x"}, {"Accept", "*/*"}}, CredentialKind::kNone, ""},
        {"bearer", {{"Authorization", "Bearer abc"}}, CredentialKind::kBearerToken, "abc"},
        {"bearer any case", {{"authorization", "bearer abc.def.ghi"}}, CredentialKind::kBearerToken, "abc.def.ghi"},
        {"bearer upper", {{"AUTHORIZATION", "BEARER a-b_c~d+e/f="}}, CredentialKind::kBearerToken, "a-b_c~d+e/f="},
        {"bearer among others",
         {{"Host", "x"}, {"Authorization", "Bearer t"}, {"Accept", "*/*"}},
         CredentialKind::kBearerToken,
         "t"},
        {"bearer two spaces", {{"Authorization", "Bearer  abc"}}, CredentialKind::kMalformed, ""},
        {"bearer tab", {{"Authorization", "Bearer\tabc"}}, CredentialKind::kMalformed, ""},
        {"bearer two tokens", {{"Authorization", "Bearer abc def"}}, CredentialKind::kMalformed, ""},
        {"bearer no token", {{"Authorization", "Bearer"}}, CredentialKind::kMalformed, ""},
        {"bearer space only", {{"Authorization", "Bearer "}}, CredentialKind::kMalformed, ""},
        {"bearer glued", {{"Authorization", "Bearerabc"}}, CredentialKind::kMalformed, ""},
        {"bearer non-ascii", {{"Authorization", "Bearer abc\xc3\xa9"}}, CredentialKind::kMalformed, ""},
        {"bearer control", {{"Authorization", "Bearer abc\x7f"}}, CredentialKind::kMalformed, ""},
        {"basic", {{"Authorization", "Basic dXNlcjpwYXNz"}}, CredentialKind::kMalformed, ""},
        {"empty authorization", {{"Authorization", ""}}, CredentialKind::kMalformed, ""},
        {"two authorization",
         {{"Authorization", "Bearer a"}, {"authorization", "Bearer a"}},
         CredentialKind::kMalformed,
         ""},
        {"api key", {{"X-API-Key", "k_0123456789abcdef"}}, CredentialKind::kApiKey, "k_0123456789abcdef"},
        {"api key any case", {{"x-api-key", "k"}}, CredentialKind::kApiKey, "k"},
        {"api key empty", {{"X-API-Key", ""}}, CredentialKind::kMalformed, ""},
        {"api key with space", {{"X-API-Key", "a b"}}, CredentialKind::kMalformed, ""},
        {"api key non-ascii", {{"X-API-Key", "k\xc3\xa9"}}, CredentialKind::kMalformed, ""},
        {"two api keys", {{"X-API-Key", "k1"}, {"X-Api-Key", "k2"}}, CredentialKind::kMalformed, ""},
        {"api key and bearer", {{"X-API-Key", "k"}, {"Authorization", "Bearer t"}}, CredentialKind::kMalformed, ""},
        {"custom field", {{"X-Token", "k"}, {"X-API-Key", "other"}}, CredentialKind::kApiKey, "k", "x-token"},
        {"default field ignored when renamed", {{"X-API-Key", "k"}}, CredentialKind::kNone, "", "X-Token"},
        {"no api key field", {{"X-API-Key", "k"}}, CredentialKind::kNone, "", ""},
        {"no api key field, bearer",
         {{"X-API-Key", "k"}, {"Authorization", "Bearer t"}},
         CredentialKind::kBearerToken,
         "t",
         ""},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        const Credentials got = extract_credentials(c.headers, c.api_key_header);
        EXPECT_EQ(got.kind, c.kind);
        EXPECT_EQ(got.value, c.value);
    }
}

TEST(CredentialsTest, ValueViewsTheHeaderBytes) {
    const std::string value = "Bearer tok";
    const std::vector<Header> headers = {{"Authorization", value}};
    const Credentials got = extract_credentials(headers);
    EXPECT_EQ(got.value.data(), value.data() + 7);
}

TEST(CredentialsTest, LooksLikeJwt) {
    EXPECT_TRUE(looks_like_jwt("a.b.c"));
    EXPECT_TRUE(looks_like_jwt(".."));
    EXPECT_TRUE(looks_like_jwt("eyJ.eyJ."));
    EXPECT_FALSE(looks_like_jwt("abc"));
    EXPECT_FALSE(looks_like_jwt("a.b"));
    EXPECT_FALSE(looks_like_jwt("a.b.c.d"));
    EXPECT_FALSE(looks_like_jwt(""));
}

}  // namespace
}  // namespace slipstream::policy::auth
