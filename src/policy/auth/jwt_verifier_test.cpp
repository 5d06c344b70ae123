// JwtVerifier with keys made at test time: every algorithm, tampering, algorithm confusion, claim rules
// and their leeway edges, malformed tokens, limits, configuration errors, concurrent verification.
#include "policy/auth/jwt_verifier.h"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "policy/auth/auth_config_error.h"
#include "policy/auth/test_tokens.h"

namespace slipstream::policy::auth {
namespace {

using testkit::b64url;
using testkit::TestKey;

constexpr std::int64_t kNow = 1'700'000'000;
const std::string kSecret(64, 's');       // long enough for HS512
const std::string kOtherSecret(64, 't');  // same length, different bytes

struct Keys {
    TestKey rsa = TestKey::rsa(2048);
    TestKey rsa_other = TestKey::rsa(2048);
    TestKey p256 = TestKey::ec("P-256");
    TestKey p256_other = TestKey::ec("P-256");
    TestKey p384 = TestKey::ec("P-384");
    TestKey p384_other = TestKey::ec("P-384");
    TestKey p521 = TestKey::ec("P-521");
    TestKey p521_other = TestKey::ec("P-521");
    TestKey ed25519 = TestKey::generate("ED25519");
    TestKey ed25519_other = TestKey::generate("ED25519");
    TestKey ed448 = TestKey::generate("ED448");
    TestKey ed448_other = TestKey::generate("ED448");
};

// Signs with a private key, or with an HMAC secret when `key` is null.
struct Signer {
    JwtAlgorithm alg;
    const TestKey* key = nullptr;
    std::string secret;

    std::string sign(std::string_view input) const {
        return key != nullptr ? key->sign(alg, input) : testkit::hmac(alg, secret, input);
    }
    std::string token(std::string_view payload, std::string_view header = {}) const {
        const std::string default_header = R"({"alg":")" + std::string(jwt_algorithm_name(alg)) + R"(","typ":"JWT"})";
        const std::string input = testkit::signing_input(header.empty() ? default_header : header, payload);
        return testkit::compact(input, sign(input));
    }
};

std::string claims(std::string_view extra = {}) {
    std::string c = R"({"sub":"alice","exp":)" + std::to_string(kNow + 600);
    if (!extra.empty()) c += "," + std::string(extra);
    return c + "}";
}

// Changes the signature's first base64url character, hence its first byte; the text stays canonical.
std::string tamper_signature(std::string token) {
    char& c = token[token.rfind('.') + 1];
    c = c == 'A' ? 'B' : 'A';
    return token;
}

class JwtVerifierTest : public ::testing::Test {
  protected:
    static void SetUpTestSuite() { keys_ = std::make_unique<Keys>(); }
    static void TearDownTestSuite() { keys_.reset(); }

    static JwtVerifier pem_verifier(const TestKey& key, JwtOptions options = {}) {
        return JwtVerifier::from_public_key_pem(key.public_pem(), std::move(options));
    }

    static inline std::unique_ptr<Keys> keys_;
    base::Arena arena_;
};

struct AlgorithmCase {
    JwtAlgorithm alg;
    std::function<const TestKey*(const Keys&)> key;        // null for HMAC
    std::function<const TestKey*(const Keys&)> other_key;  // same type, different key; null for HMAC
};

const std::vector<AlgorithmCase>& algorithm_cases() {
    static const std::vector<AlgorithmCase> cases = {
        {JwtAlgorithm::kHS256, nullptr, nullptr},
        {JwtAlgorithm::kHS384, nullptr, nullptr},
        {JwtAlgorithm::kHS512, nullptr, nullptr},
        {JwtAlgorithm::kRS256, [](const Keys& k) { return &k.rsa; }, [](const Keys& k) { return &k.rsa_other; }},
        {JwtAlgorithm::kRS384, [](const Keys& k) { return &k.rsa; }, [](const Keys& k) { return &k.rsa_other; }},
        {JwtAlgorithm::kRS512, [](const Keys& k) { return &k.rsa; }, [](const Keys& k) { return &k.rsa_other; }},
        {JwtAlgorithm::kPS256, [](const Keys& k) { return &k.rsa; }, [](const Keys& k) { return &k.rsa_other; }},
        {JwtAlgorithm::kPS384, [](const Keys& k) { return &k.rsa; }, [](const Keys& k) { return &k.rsa_other; }},
        {JwtAlgorithm::kPS512, [](const Keys& k) { return &k.rsa; }, [](const Keys& k) { return &k.rsa_other; }},
        {JwtAlgorithm::kES256, [](const Keys& k) { return &k.p256; }, [](const Keys& k) { return &k.p256_other; }},
        {JwtAlgorithm::kES384, [](const Keys& k) { return &k.p384; }, [](const Keys& k) { return &k.p384_other; }},
        {JwtAlgorithm::kES512, [](const Keys& k) { return &k.p521; }, [](const Keys& k) { return &k.p521_other; }},
        {JwtAlgorithm::kEdDSA, [](const Keys& k) { return &k.ed25519; },
         [](const Keys& k) { return &k.ed25519_other; }},
        {JwtAlgorithm::kEdDSA, [](const Keys& k) { return &k.ed448; }, [](const Keys& k) { return &k.ed448_other; }},
    };
    return cases;
}

TEST_F(JwtVerifierTest, EveryAlgorithmVerifiesAndRefusesTampering) {
    for (const AlgorithmCase& c : algorithm_cases()) {
        SCOPED_TRACE(jwt_algorithm_name(c.alg));
        const bool hmac = !c.key;
        const Signer signer{c.alg, hmac ? nullptr : c.key(*keys_), kSecret};
        const Signer wrong{c.alg, hmac ? nullptr : c.other_key(*keys_), kOtherSecret};
        const JwtVerifier verifier = hmac ? JwtVerifier::from_secret(kSecret) : pem_verifier(*c.key(*keys_));

        const std::string token = signer.token(claims(R"("scope":"read write","n":[1,{"x":null}])"));
        const JwtResult ok = verifier.verify(token, kNow, arena_);
        ASSERT_EQ(ok.error, AuthError::kNone);
        EXPECT_TRUE(ok.ok());
        EXPECT_EQ(ok.token.subject, "alice");
        EXPECT_EQ(ok.token.algorithm, c.alg);
        ASSERT_NE(ok.token.claims, nullptr);
        ASSERT_NE(ok.token.claims->find("scope"), nullptr);
        EXPECT_EQ(ok.token.claims->find("scope")->as_string(), "read write");
        EXPECT_EQ(ok.token.claims->members().size(), 4u);

        // Payload swapped under the original signature.
        const std::string other_payload = b64url(R"({"sub":"admin","exp":)" + std::to_string(kNow + 600) + "}");
        std::string swapped = token;
        const std::size_t dot1 = token.find('.'), dot2 = token.rfind('.');
        swapped.replace(dot1 + 1, dot2 - dot1 - 1, other_payload);
        EXPECT_EQ(verifier.verify(swapped, kNow, arena_).error, AuthError::kBadSignature);

        EXPECT_EQ(verifier.verify(tamper_signature(token), kNow, arena_).error, AuthError::kBadSignature);
        EXPECT_EQ(verifier.verify(wrong.token(claims()), kNow, arena_).error, AuthError::kBadSignature);
        // Empty signature segment.
        EXPECT_EQ(verifier.verify(token.substr(0, dot2 + 1), kNow, arena_).error, AuthError::kBadSignature);
    }
}

TEST_F(JwtVerifierTest, EcdsaSignaturesAreRawFixedWidthRAndS) {
    const struct {
        JwtAlgorithm alg;
        const TestKey* key;
        std::size_t half;
    } cases[] = {
        {JwtAlgorithm::kES256, &keys_->p256, 32},
        {JwtAlgorithm::kES384, &keys_->p384, 48},
        {JwtAlgorithm::kES512, &keys_->p521, 66},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(jwt_algorithm_name(c.alg));
        const JwtVerifier verifier = pem_verifier(*c.key);
        const std::string input =
            testkit::signing_input(R"({"alg":")" + std::string(jwt_algorithm_name(c.alg)) + R"("})", claims());

        // Find a signature whose r or s has a leading zero byte: the DER form is then shorter than the raw one,
        // which a conversion that does not pad (or strip) correctly gets wrong.
        std::string sig;
        for (int i = 0; i < 4000; ++i) {
            sig = c.key->sign(c.alg, input);
            if (sig[0] == '\0' || sig[c.half] == '\0') break;
        }
        ASSERT_TRUE(sig[0] == '\0' || sig[c.half] == '\0');
        ASSERT_EQ(sig.size(), 2 * c.half);
        EXPECT_EQ(verifier.verify(testkit::compact(input, sig), kNow, arena_).error, AuthError::kNone);

        // s || r, a byte short, a byte long, and the DER encoding itself are all refused.
        const std::string swapped = sig.substr(c.half) + sig.substr(0, c.half);
        EXPECT_EQ(verifier.verify(testkit::compact(input, swapped), kNow, arena_).error, AuthError::kBadSignature);
        EXPECT_EQ(verifier.verify(testkit::compact(input, sig.substr(1)), kNow, arena_).error,
                  AuthError::kBadSignature);
        EXPECT_EQ(verifier.verify(testkit::compact(input, sig + '\0'), kNow, arena_).error, AuthError::kBadSignature);
        const std::string zeros(2 * c.half, '\0');
        EXPECT_EQ(verifier.verify(testkit::compact(input, zeros), kNow, arena_).error, AuthError::kBadSignature);
    }
}

TEST_F(JwtVerifierTest, AlgorithmFollowsTheKeyNotTheToken) {
    const std::string rsa_pem = keys_->rsa.public_pem();
    const JwtVerifier rsa = JwtVerifier::from_public_key_pem(rsa_pem);
    const JwtVerifier p256 = pem_verifier(keys_->p256);
    const JwtVerifier ed = pem_verifier(keys_->ed25519);
    const JwtVerifier hmac32 = JwtVerifier::from_secret(std::string(32, 'k'));

    // The classic confusion: HS256 with the RSA public key's PEM bytes as the HMAC secret.
    const Signer confused{JwtAlgorithm::kHS256, nullptr, rsa_pem};
    EXPECT_EQ(rsa.verify(confused.token(claims()), kNow, arena_).error, AuthError::kUnsupportedAlgorithm);
    const Signer confused_ec{JwtAlgorithm::kHS256, nullptr, keys_->p256.public_pem()};
    EXPECT_EQ(p256.verify(confused_ec.token(claims()), kNow, arena_).error, AuthError::kUnsupportedAlgorithm);

    struct Case {
        const JwtVerifier* verifier;
        Signer signer;
    };
    const std::vector<Case> cases = {
        {&rsa, {JwtAlgorithm::kES256, &keys_->p256, ""}},
        {&rsa, {JwtAlgorithm::kEdDSA, &keys_->ed25519, ""}},
        {&p256, {JwtAlgorithm::kES384, &keys_->p384, ""}},
        {&p256, {JwtAlgorithm::kRS256, &keys_->rsa, ""}},
        {&ed, {JwtAlgorithm::kES256, &keys_->p256, ""}},
        {&hmac32, {JwtAlgorithm::kHS384, nullptr, std::string(32, 'k')}},  // secret too short for HS384
        {&hmac32, {JwtAlgorithm::kHS512, nullptr, std::string(32, 'k')}},
        {&hmac32, {JwtAlgorithm::kRS256, &keys_->rsa, ""}},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(jwt_algorithm_name(c.signer.alg));
        EXPECT_EQ(c.verifier->verify(c.signer.token(claims()), kNow, arena_).error, AuthError::kUnsupportedAlgorithm);
    }
    EXPECT_TRUE(hmac32.accepts(JwtAlgorithm::kHS256));
    EXPECT_FALSE(hmac32.accepts(JwtAlgorithm::kHS384));
    EXPECT_TRUE(rsa.accepts(JwtAlgorithm::kPS512));
    EXPECT_FALSE(rsa.accepts(JwtAlgorithm::kHS256));
    EXPECT_TRUE(p256.accepts(JwtAlgorithm::kES256));
    EXPECT_FALSE(p256.accepts(JwtAlgorithm::kES384));
}

TEST_F(JwtVerifierTest, UnsignedAndUnknownAlgorithmsAreRefused) {
    const JwtVerifier verifier = JwtVerifier::from_secret(kSecret);
    const std::string payload = b64url(claims());
    struct Case {
        std::string header;
        std::string signature;
    };
    const std::vector<Case> cases = {
        {R"({"alg":"none"})", ""},   {R"({"alg":"none"})", b64url(testkit::hmac(JwtAlgorithm::kHS256, kSecret, "x"))},
        {R"({"alg":"None"})", ""},   {R"({"alg":"NONE"})", ""},
        {R"({"alg":"hs256"})", ""},  {R"({"alg":"HS256 "})", ""},
        {R"({"alg":"ES256K"})", ""}, {R"({"alg":""})", ""},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.header);
        const std::string token = b64url(c.header) + "." + payload + "." + c.signature;
        EXPECT_EQ(verifier.verify(token, kNow, arena_).error, AuthError::kUnsupportedAlgorithm);
    }
}

struct ClaimCase {
    std::string payload;
    AuthError error;
};

std::string at(std::int64_t offset) {
    return std::to_string(kNow + offset);
}

TEST_F(JwtVerifierTest, ClaimRulesWithExactLeewayEdges) {
    JwtOptions options;
    options.issuer = "https://issuer.example";
    options.audience = "api";
    const JwtVerifier verifier = JwtVerifier::from_secret(kSecret, options);
    const Signer signer{JwtAlgorithm::kHS256, nullptr, kSecret};
    const std::string iss_aud = R"("iss":"https://issuer.example","aud":"api")";
    const auto with = [&](std::string_view members) { return "{" + iss_aud + "," + std::string(members) + "}"; };

    const std::vector<ClaimCase> cases = {
        {with(R"("sub":"alice","exp":)" + at(600)), AuthError::kNone},
        // exp: valid while now < exp + 60.
        {with(R"("sub":"alice","exp":)" + at(-59)), AuthError::kNone},
        {with(R"("sub":"alice","exp":)" + at(-60)), AuthError::kExpired},
        {with(R"("sub":"alice","exp":)" + at(-3600)), AuthError::kExpired},
        {with(R"("sub":"alice","exp":)" + at(-60) + ".5"), AuthError::kNone},
        {with(R"("sub":"alice","exp":)" + at(-61) + ".5"), AuthError::kExpired},
        {with(R"("sub":"alice","exp":-1)"), AuthError::kExpired},
        {with(R"("sub":"alice","exp":1e300)"), AuthError::kNone},
        {with(R"("sub":"alice","exp":123456789012345678901234567890)"), AuthError::kNone},
        {with(R"("sub":"alice")"), AuthError::kMissingExpiry},
        // nbf: valid once now >= nbf - 60.
        {with(R"("sub":"alice","exp":)" + at(600) + R"(,"nbf":)" + at(60)), AuthError::kNone},
        {with(R"("sub":"alice","exp":)" + at(600) + R"(,"nbf":)" + at(61)), AuthError::kNotYetValid},
        {with(R"("sub":"alice","exp":)" + at(600) + R"(,"nbf":)" + at(-600)), AuthError::kNone},
        // iat: not more than 60 s in the future.
        {with(R"("sub":"alice","exp":)" + at(600) + R"(,"iat":)" + at(60)), AuthError::kNone},
        {with(R"("sub":"alice","exp":)" + at(600) + R"(,"iat":)" + at(61)), AuthError::kNotYetValid},
        // Types of registered claims.
        {with(R"("sub":"alice","exp":")" + at(600) + R"(")"), AuthError::kMalformedToken},
        {with(R"("sub":"alice","exp":null)"), AuthError::kMalformedToken},
        {with(R"("sub":"alice","exp":)" + at(600) + R"(,"nbf":true)"), AuthError::kMalformedToken},
        {with(R"("sub":"alice","exp":)" + at(600) + R"(,"iat":"now")"), AuthError::kMalformedToken},
        {with(R"("sub":7,"exp":)" + at(600)), AuthError::kMalformedToken},
        // sub.
        {with(R"("exp":)" + at(600)), AuthError::kMissingSubject},
        {with(R"("sub":"","exp":)" + at(600)), AuthError::kMissingSubject},
        // iss.
        {R"({"aud":"api","sub":"alice","exp":)" + at(600) + "}", AuthError::kWrongIssuer},
        {R"({"iss":"https://issuer.example/","aud":"api","sub":"alice","exp":)" + at(600) + "}",
         AuthError::kWrongIssuer},
        {R"({"iss":"HTTPS://issuer.example","aud":"api","sub":"alice","exp":)" + at(600) + "}",
         AuthError::kWrongIssuer},
        {R"({"iss":["https://issuer.example"],"aud":"api","sub":"alice","exp":)" + at(600) + "}",
         AuthError::kMalformedToken},
        // aud: a string or an array containing the configured audience.
        {R"({"iss":"https://issuer.example","aud":["web","api"],"sub":"alice","exp":)" + at(600) + "}",
         AuthError::kNone},
        {R"({"iss":"https://issuer.example","aud":["web"],"sub":"alice","exp":)" + at(600) + "}",
         AuthError::kWrongAudience},
        {R"({"iss":"https://issuer.example","aud":[],"sub":"alice","exp":)" + at(600) + "}", AuthError::kWrongAudience},
        {R"({"iss":"https://issuer.example","aud":"API","sub":"alice","exp":)" + at(600) + "}",
         AuthError::kWrongAudience},
        {R"({"iss":"https://issuer.example","sub":"alice","exp":)" + at(600) + "}", AuthError::kWrongAudience},
        {R"({"iss":"https://issuer.example","aud":["api",1],"sub":"alice","exp":)" + at(600) + "}",
         AuthError::kMalformedToken},
        {R"({"iss":"https://issuer.example","aud":{"x":"api"},"sub":"alice","exp":)" + at(600) + "}",
         AuthError::kMalformedToken},
        // The first failing rule answers: exp before nbf, iss, aud and sub.
        {R"({"exp":)" + at(-600) + R"(,"nbf":)" + at(600) + "}", AuthError::kExpired},
        {R"({"exp":)" + at(600) + R"(,"aud":"web"})", AuthError::kWrongIssuer},
        // Claims that are not an object, or not JSON at all.
        {R"(["sub","alice"])", AuthError::kMalformedToken},
        {R"("alice")", AuthError::kMalformedToken},
        {R"({"sub":"alice",)", AuthError::kMalformedToken},
        {"", AuthError::kMalformedToken},
        // A repeated member is refused rather than resolved.
        {with(R"("sub":"alice","sub":"admin","exp":)" + at(600)), AuthError::kMalformedToken},
    };
    for (const ClaimCase& c : cases) {
        SCOPED_TRACE(c.payload);
        const JwtResult r = verifier.verify(signer.token(c.payload), kNow, arena_);
        EXPECT_EQ(r.error, c.error) << auth_error_code(r.error);
        if (r.ok()) {
            EXPECT_EQ(r.token.subject, "alice");
        }
    }
}

TEST_F(JwtVerifierTest, OptionalRulesAndLeeway) {
    const Signer signer{JwtAlgorithm::kHS256, nullptr, kSecret};
    struct Case {
        JwtOptions options;
        std::string payload;
        AuthError error;
    };
    JwtOptions no_exp;
    no_exp.require_exp = false;
    JwtOptions no_leeway;
    no_leeway.leeway_seconds = 0;
    JwtOptions audience;
    audience.audience = "api";
    const std::vector<Case> cases = {
        {{}, R"({"sub":"alice","exp":)" + at(1) + "}", AuthError::kNone},
        // No issuer configured: iss is not checked.
        {{}, R"({"sub":"alice","iss":"anyone","exp":)" + at(1) + "}", AuthError::kNone},
        // No audience configured: a token naming one is refused (RFC 7519 §4.1.3).
        {{}, R"({"sub":"alice","aud":"api","exp":)" + at(1) + "}", AuthError::kWrongAudience},
        {audience, R"({"sub":"alice","aud":"api","exp":)" + at(1) + "}", AuthError::kNone},
        {{}, R"({"sub":"alice"})", AuthError::kMissingExpiry},
        {no_exp, R"({"sub":"alice"})", AuthError::kNone},
        {no_exp, R"({"sub":"alice","exp":)" + at(-60) + "}", AuthError::kExpired},
        {no_leeway, R"({"sub":"alice","exp":)" + at(1) + "}", AuthError::kNone},
        {no_leeway, R"({"sub":"alice","exp":)" + at(0) + "}", AuthError::kExpired},
        {no_leeway, R"({"sub":"alice","exp":)" + at(1) + R"(,"nbf":)" + at(0) + "}", AuthError::kNone},
        {no_leeway, R"({"sub":"alice","exp":)" + at(9) + R"(,"nbf":)" + at(1) + "}", AuthError::kNotYetValid},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.payload);
        const JwtVerifier verifier = JwtVerifier::from_secret(kSecret, c.options);
        EXPECT_EQ(verifier.verify(signer.token(c.payload), kNow, arena_).error, c.error);
    }
}

TEST_F(JwtVerifierTest, MalformedTokens) {
    const JwtVerifier verifier = JwtVerifier::from_secret(kSecret);
    const Signer signer{JwtAlgorithm::kHS256, nullptr, kSecret};
    const std::string good = signer.token(claims());
    ASSERT_EQ(verifier.verify(good, kNow, arena_).error, AuthError::kNone);
    const std::size_t dot1 = good.find('.'), dot2 = good.rfind('.');
    const std::string header = good.substr(0, dot1), payload = good.substr(dot1 + 1, dot2 - dot1 - 1),
                      sig = good.substr(dot2 + 1);
    const auto signed_with_header = [&](std::string_view header_json) { return signer.token(claims(), header_json); };
    const auto signed_raw = [&](const std::string& header_b64, const std::string& payload_b64) {
        const std::string input = header_b64 + "." + payload_b64;
        return testkit::compact(input, signer.sign(input));
    };

    // Signature text whose last character carries stray bits: same bytes, non-canonical text.
    const std::string sig_stray = sig.substr(0, sig.size() - 1) + static_cast<char>(sig.back() + 1);
    ASSERT_EQ(sig.size() % 4, 3u);  // a 32-byte MAC ends in a 3-character group with 2 unused bits

    const std::vector<std::string> cases = {
        "",
        "abc",
        header + "." + payload,
        header + "." + payload + "." + sig + "." + sig,  // five segments (a JWE) or four
        header + "." + payload + "." + sig + ".",
        "." + payload + "." + sig,
        header + ".." + sig,
        header + "=." + payload + "." + sig,
        signed_raw(header, payload + "="),  // signed as sent, so only the payload's encoding is wrong
        signed_raw(header, payload.substr(0, payload.size() - 1) + "+"),
        signed_raw(header, b64url("not json")),
        header + "." + payload + "." + sig + "=",
        header + "." + payload + "." + sig_stray,
        " " + good,
        good + " ",
        header + "." + payload + "." + sig.substr(0, 2) + "+" + sig.substr(3),
        b64url("not json") + "." + payload + "." + sig,
        b64url(R"(["HS256"])") + "." + payload + "." + sig,
        b64url(R"({"typ":"JWT"})") + "." + payload + "." + sig,
        b64url(R"({"alg":256})") + "." + payload + "." + sig,
        b64url(R"({"alg":null})") + "." + payload + "." + sig,
        b64url("{\"alg\":\"HS256\",\"alg\":\"HS256\"}") + "." + payload + "." + sig,
        b64url(std::string("{\"alg\":\"HS\xff\"}")) + "." + payload + "." + sig,
        // A critical header extension is never understood (checked before the signature).
        signed_with_header(R"({"alg":"HS256","crit":["exp"],"exp":1})"),
        signed_with_header(R"({"alg":"HS256","b64":false,"crit":["b64"]})"),
    };
    for (const std::string& token : cases) {
        SCOPED_TRACE(token);
        EXPECT_EQ(verifier.verify(token, kNow, arena_).error, AuthError::kMalformedToken);
    }
    // The payload is decoded only after the signature: an altered one is a bad signature, whatever its bytes.
    EXPECT_EQ(verifier.verify(header + "." + payload + "=." + sig, kNow, arena_).error, AuthError::kBadSignature);
    // Unknown header members are ignored; keys are never taken from the token.
    EXPECT_EQ(verifier
                  .verify(signed_with_header(R"({"alg":"HS256","kid":"k1","jku":"https://evil.example/jwks",)"
                                             R"("jwk":{"kty":"oct","k":"AAAA"},"x5u":"https://evil.example"})"),
                          kNow, arena_)
                  .error,
              AuthError::kNone);
}

TEST_F(JwtVerifierTest, LengthLimitIsInclusive) {
    const Signer signer{JwtAlgorithm::kHS256, nullptr, kSecret};
    const std::string token = signer.token(claims(R"("pad":")" + std::string(200, 'x') + R"(")"));
    JwtOptions exact;
    exact.max_token_bytes = token.size();
    EXPECT_EQ(JwtVerifier::from_secret(kSecret, exact).verify(token, kNow, arena_).error, AuthError::kNone);
    JwtOptions under;
    under.max_token_bytes = token.size() - 1;
    EXPECT_EQ(JwtVerifier::from_secret(kSecret, under).verify(token, kNow, arena_).error, AuthError::kTokenTooLong);

    // Default: 8 KiB; anything longer is refused before it is decoded, garbage or not.
    const JwtVerifier verifier = JwtVerifier::from_secret(kSecret);
    EXPECT_EQ(verifier.options().max_token_bytes, 8192u);
    EXPECT_EQ(verifier.verify(std::string(8193, '.'), kNow, arena_).error, AuthError::kTokenTooLong);
    EXPECT_EQ(verifier.verify(std::string(8192, '.'), kNow, arena_).error, AuthError::kMalformedToken);
    const std::string big = signer.token(claims(R"("pad":")" + std::string(8192, 'x') + R"(")"));
    EXPECT_EQ(verifier.verify(big, kNow, arena_).error, AuthError::kTokenTooLong);
}

TEST_F(JwtVerifierTest, AlgorithmsOptionNarrowsTheKeysFamily) {
    JwtOptions ps_only;
    ps_only.algorithms = {JwtAlgorithm::kPS256};
    const JwtVerifier verifier = pem_verifier(keys_->rsa, ps_only);
    EXPECT_EQ(verifier.verify(Signer{JwtAlgorithm::kPS256, &keys_->rsa, ""}.token(claims()), kNow, arena_).error,
              AuthError::kNone);
    EXPECT_EQ(verifier.verify(Signer{JwtAlgorithm::kRS256, &keys_->rsa, ""}.token(claims()), kNow, arena_).error,
              AuthError::kUnsupportedAlgorithm);
    EXPECT_EQ(verifier.verify(Signer{JwtAlgorithm::kPS384, &keys_->rsa, ""}.token(claims()), kNow, arena_).error,
              AuthError::kUnsupportedAlgorithm);
}

TEST_F(JwtVerifierTest, ConfigurationErrorsNameTheProblem) {
    struct Case {
        std::function<void()> build;
        std::string message;
    };
    const auto with_algorithms = [](std::vector<JwtAlgorithm> algs) {
        JwtOptions o;
        o.algorithms = std::move(algs);
        return o;
    };
    JwtOptions negative;
    negative.leeway_seconds = -1;
    JwtOptions zero_length;
    zero_length.max_token_bytes = 0;
    const std::string p256 = keys_->p256.public_pem();
    const std::string rsa1024 = TestKey::rsa(1024).public_pem();
    const std::string k1 = TestKey::ec("secp256k1").public_pem();
    const std::string x25519 = TestKey::generate("X25519").public_pem();
    const std::string private_pem = keys_->p256.private_pem();

    const std::vector<Case> cases = {
        {[] { (void)JwtVerifier::from_secret(std::string(31, 'k')); },
         "JwtVerifier: HMAC secret has 31 bytes; at least 32 are required (RFC 7518 §3.2)"},
        {[] { (void)JwtVerifier::from_secret(""); },
         "JwtVerifier: HMAC secret has 0 bytes; at least 32 are required (RFC 7518 §3.2)"},
        {[&] { (void)JwtVerifier::from_secret(std::string(32, 'k'), with_algorithms({JwtAlgorithm::kHS512})); },
         "JwtOptions: HS512 cannot be verified with a 32-byte HMAC secret"},
        {[&] { (void)JwtVerifier::from_secret(kSecret, with_algorithms({JwtAlgorithm::kRS256})); },
         "JwtOptions: RS256 cannot be verified with a 64-byte HMAC secret"},
        {[&] { (void)JwtVerifier::from_public_key_pem(p256, with_algorithms({JwtAlgorithm::kES384})); },
         "JwtOptions: ES384 cannot be verified with an EC P-256 public key"},
        {[&] { (void)JwtVerifier::from_public_key_pem(p256, with_algorithms({JwtAlgorithm::kHS256})); },
         "JwtOptions: HS256 cannot be verified with an EC P-256 public key"},
        {[&] { (void)JwtVerifier::from_secret(kSecret, negative); }, "JwtOptions: leeway_seconds is negative"},
        {[&] { (void)JwtVerifier::from_secret(kSecret, zero_length); }, "JwtOptions: max_token_bytes is 0"},
        {[&] { (void)JwtVerifier::from_public_key_pem(private_pem, {}, "jwt.pem"); },
         "jwt.pem: holds a private key; give the verifier only the public key (openssl pkey -pubout)"},
        {[&] { (void)JwtVerifier::from_public_key_pem("-----BEGIN CERTIFICATE-----\nMIIB\n", {}, "jwt.pem"); },
         "jwt.pem: holds a certificate; give its public key (openssl x509 -pubkey -noout)"},
        {[&] { (void)JwtVerifier::from_public_key_pem("not a key", {}, "jwt.pem"); },
         "jwt.pem: is not a PEM public key (-----BEGIN PUBLIC KEY-----)"},
        {[&] { (void)JwtVerifier::from_public_key_pem(p256.substr(0, p256.size() / 2), {}, "jwt.pem"); },
         "jwt.pem: is not a PEM public key (-----BEGIN PUBLIC KEY-----)"},
        {[&] { (void)JwtVerifier::from_public_key_pem(rsa1024, {}, "jwt.pem"); },
         "jwt.pem: RSA key has 1024 bits; at least 2048 are required"},
        {[&] { (void)JwtVerifier::from_public_key_pem(k1, {}, "jwt.pem"); },
         "jwt.pem: EC curve secp256k1 is not supported (P-256, P-384, P-521)"},
        {[&] { (void)JwtVerifier::from_public_key_pem(x25519, {}, "jwt.pem"); },
         "jwt.pem: key type X25519 is not supported (RSA, EC P-256/P-384/P-521, Ed25519, Ed448)"},
        {[] { (void)JwtVerifier::from_public_key_file("/nonexistent/slipstream/jwt.pem"); },
         "/nonexistent/slipstream/jwt.pem: cannot read: No such file or directory"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.message);
        EXPECT_EQ(testkit::config_error(c.build), c.message);
    }
}

TEST_F(JwtVerifierTest, LoadsPublicKeyFromFile) {
    const testkit::TempFile pem(keys_->p384.public_pem());
    const JwtVerifier verifier = JwtVerifier::from_public_key_file(pem.path());
    EXPECT_EQ(verifier.verify(Signer{JwtAlgorithm::kES384, &keys_->p384, ""}.token(claims()), kNow, arena_).error,
              AuthError::kNone);
}

TEST_F(JwtVerifierTest, ConcurrentVerificationSharesOneVerifier) {
    const JwtVerifier rsa = pem_verifier(keys_->rsa);
    const JwtVerifier ec = pem_verifier(keys_->p256);
    const std::string rsa_token = Signer{JwtAlgorithm::kPS256, &keys_->rsa, ""}.token(claims());
    const std::string ec_token = Signer{JwtAlgorithm::kES256, &keys_->p256, ""}.token(claims());
    const std::string bad_token = tamper_signature(ec_token);
    std::atomic<int> ok{0}, refused{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&] {
            base::Arena arena;
            for (int i = 0; i < 50; ++i) {
                ok += rsa.verify(rsa_token, kNow, arena).ok();
                ok += ec.verify(ec_token, kNow, arena).ok();
                refused += ec.verify(bad_token, kNow, arena).error == AuthError::kBadSignature;
                arena.reset();
            }
        });
    }
    for (std::thread& t : threads)
        t.join();
    EXPECT_EQ(ok.load(), 4 * 50 * 2);
    EXPECT_EQ(refused.load(), 4 * 50);
}

}  // namespace
}  // namespace slipstream::policy::auth
