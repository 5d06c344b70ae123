// Authenticator: credentials routed to the key store or the JWT verifier, outcomes and reasons.
#include "policy/auth/authenticator.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "policy/auth/auth_config_error.h"
#include "policy/auth/test_tokens.h"

namespace slipstream::policy::auth {
namespace {

using http::h1::Header;

constexpr std::int64_t kNow = 1'700'000'000;
const std::string kSecret(32, 'j');
const std::string kAliceKey = "ak_alice_0123456789";
const std::string kDottedKey = "ak.dotted.0123456789";  // an API key with two dots

std::string jwt(std::string_view payload) {
    const std::string input = testkit::signing_input(R"({"alg":"HS256"})", payload);
    return testkit::compact(input, testkit::hmac(JwtAlgorithm::kHS256, kSecret, input));
}

ApiKeyStore store() {
    const std::vector<ApiKey> keys = {{"alice", kAliceKey, "100/s"}, {"dot", kDottedKey, ""}};
    return ApiKeyStore(keys);
}

Authenticator make(bool keys, bool tokens, std::string api_key_header = "X-API-Key") {
    AuthenticatorConfig config;
    if (keys) config.api_keys = store();
    if (tokens) config.jwt = JwtVerifier::from_secret(kSecret);
    config.api_key_header = std::move(api_key_header);
    return Authenticator(std::move(config));
}

struct Expected {
    AuthOutcome outcome;
    AuthError error;
    AuthMethod method;
    std::string_view principal;
    std::string_view rate;
};
constexpr Expected kAnonymous{AuthOutcome::kAnonymous, AuthError::kNone, AuthMethod::kNone, "", ""};
constexpr Expected refused(AuthError error) {
    return {AuthOutcome::kRefused, error, AuthMethod::kNone, "", ""};
}
constexpr Expected by_key(std::string_view principal, std::string_view rate) {
    return {AuthOutcome::kAuthenticated, AuthError::kNone, AuthMethod::kApiKey, principal, rate};
}
constexpr Expected by_jwt(std::string_view principal) {
    return {AuthOutcome::kAuthenticated, AuthError::kNone, AuthMethod::kJwt, principal, ""};
}

struct Case {
    std::string name;
    std::vector<Header> headers;
    Expected expected;
};

void run(const Authenticator& auth, const std::vector<Case>& cases) {
    base::Arena arena;
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        const AuthResult r = auth.authenticate(c.headers, kNow, arena);
        EXPECT_EQ(r.outcome, c.expected.outcome);
        EXPECT_EQ(r.error, c.expected.error) << auth_error_code(r.error);
        EXPECT_EQ(r.method, c.expected.method);
        EXPECT_EQ(r.principal, c.expected.principal);
        EXPECT_EQ(r.rate, c.expected.rate);
        EXPECT_EQ(r.claims != nullptr, c.expected.method == AuthMethod::kJwt);
    }
}

const std::string kGoodJwt = jwt(R"({"sub":"bob","exp":)" + std::to_string(kNow + 60) + "}");
const std::string kExpiredJwt = jwt(R"({"sub":"bob","exp":)" + std::to_string(kNow - 600) + "}");
const std::string kBearerGood = "Bearer " + kGoodJwt;
const std::string kBearerExpired = "Bearer " + kExpiredJwt;
const std::string kBearerAlice = "Bearer " + kAliceKey;
const std::string kBearerDotted = "Bearer " + kDottedKey;

TEST(AuthenticatorTest, ApiKeysOnly) {
    run(make(true, false),
        {
            {"no credentials", {{"Host", "x"}}, kAnonymous},
            {"api key field", {{"X-API-Key", kAliceKey}}, by_key("alice", "100/s")},
            {"api key as bearer", {{"Authorization", kBearerAlice}}, by_key("alice", "100/s")},
            {"dotted key as bearer", {{"Authorization", kBearerDotted}}, by_key("dot", "")},
            {"unknown key", {{"X-API-Key", "ak_nobody_0123456789"}}, refused(AuthError::kUnknownApiKey)},
            {"jwt without verifier", {{"Authorization", kBearerGood}}, refused(AuthError::kUnknownApiKey)},
            {"basic", {{"Authorization", "Basic eDp5"}}, refused(AuthError::kMalformedCredentials)},
            {"two keys",
             {{"X-API-Key", kAliceKey}, {"X-API-Key", kAliceKey}},
             refused(AuthError::kMalformedCredentials)},
        });
}

TEST(AuthenticatorTest, JwtOnly) {
    run(make(false, true),
        {
            {"no credentials", {}, kAnonymous},
            {"jwt", {{"Authorization", kBearerGood}}, by_jwt("bob")},
            {"expired jwt", {{"Authorization", kBearerExpired}}, refused(AuthError::kExpired)},
            {"opaque bearer", {{"Authorization", kBearerAlice}}, refused(AuthError::kMalformedToken)},
            // Without a key store the API-key field is not a credential at all.
            {"api key field ignored", {{"X-API-Key", kAliceKey}}, kAnonymous},
            {"api key field beside jwt", {{"X-API-Key", kAliceKey}, {"Authorization", kBearerGood}}, by_jwt("bob")},
        });
}

TEST(AuthenticatorTest, BothRouteByShape) {
    run(make(true, true, "X-Key"),
        {
            {"jwt", {{"Authorization", kBearerGood}}, by_jwt("bob")},
            {"api key as bearer", {{"Authorization", kBearerAlice}}, by_key("alice", "100/s")},
            {"custom field", {{"x-key", kAliceKey}}, by_key("alice", "100/s")},
            {"default field not configured", {{"X-API-Key", kAliceKey}}, kAnonymous},
            // Two dots make it a JWT: a dotted API key cannot be sent as a bearer token here.
            {"dotted key as bearer", {{"Authorization", kBearerDotted}}, refused(AuthError::kMalformedToken)},
            {"dotted key in its field", {{"X-Key", kDottedKey}}, by_key("dot", "")},
            {"key and token",
             {{"X-Key", kAliceKey}, {"Authorization", kBearerGood}},
             refused(AuthError::kMalformedCredentials)},
            {"expired jwt", {{"Authorization", kBearerExpired}}, refused(AuthError::kExpired)},
        });
}

TEST(AuthenticatorTest, JwtClaimsAreHandedOver) {
    const Authenticator auth = make(false, true);
    base::Arena arena;
    const std::string bearer =
        "Bearer " + jwt(R"({"sub":"bob","exp":)" + std::to_string(kNow + 60) + R"(,"roles":["admin"]})");
    const std::vector<Header> headers = {{"Authorization", bearer}};
    const AuthResult r = auth.authenticate(headers, kNow, arena);
    ASSERT_EQ(r.outcome, AuthOutcome::kAuthenticated);
    ASSERT_NE(r.claims, nullptr);
    const json::Value* roles = r.claims->find("roles");
    ASSERT_NE(roles, nullptr);
    ASSERT_EQ(roles->items().size(), 1u);
    EXPECT_EQ(roles->items()[0].as_string(), "admin");
    // Time is a parameter: the same request a day later is refused.
    EXPECT_EQ(auth.authenticate(headers, kNow + 86400, arena).error, AuthError::kExpired);
}

TEST(AuthenticatorTest, ConfigurationErrors) {
    const struct {
        std::function<void()> build;
        std::string message;
    } cases[] = {
        {[] { (void)make(false, false); }, "AuthenticatorConfig: neither api_keys nor jwt is set"},
        {[] { (void)make(true, false, "authorization"); },
         "AuthenticatorConfig: api_key_header cannot be Authorization"},
        {[] { (void)make(true, false, "X API Key"); }, "AuthenticatorConfig: api_key_header is not a valid field name"},
        {[] { (void)make(true, false, ""); }, "AuthenticatorConfig: api_key_header is not a valid field name"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.message);
        EXPECT_EQ(testkit::config_error(c.build), c.message);
    }
}

TEST(AuthenticatorTest, ErrorCodesAndMessagesAreDistinct) {
    std::vector<std::string_view> codes, messages;
    for (int i = 1; i <= static_cast<int>(AuthError::kMissingSubject); ++i) {
        const auto e = static_cast<AuthError>(i);
        EXPECT_FALSE(auth_error_code(e).empty());
        EXPECT_FALSE(auth_error_message(e).empty());
        for (std::string_view seen : codes)
            EXPECT_NE(seen, auth_error_code(e));
        for (std::string_view seen : messages)
            EXPECT_NE(seen, auth_error_message(e));
        codes.push_back(auth_error_code(e));
        messages.push_back(auth_error_message(e));
    }
    EXPECT_EQ(codes.size(), 12u);
    EXPECT_EQ(auth_error_code(AuthError::kExpired), "token_expired");
    EXPECT_EQ(auth_error_message(AuthError::kExpired), "Token has expired");
    EXPECT_EQ(auth_error_code(AuthError::kNone), "");
}

}  // namespace
}  // namespace slipstream::policy::auth
