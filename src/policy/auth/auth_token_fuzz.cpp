// Fuzz target: bearer JWTs against HMAC and EC P-256 verifiers, harness-signed claims, and header blocks through
// extract_credentials and Authenticators; every answer must follow the documented rules.
//
// Each input is read three ways:
//   1. as one token, verified by three verifiers (HMAC with default options, HMAC with issuer/audience/short
//      limits, ES256). A result is ok with a non-empty UTF-8 subject or an error from the closed set; an ok
//      HMAC result must carry the HMAC this harness computes itself and must verify again to the same answer.
//   2. as "<JOSE header>\n<claims>": both are base64url-encoded here and signed with the HMAC secret (HS256),
//      so the claim rules are reached; the verifiers' answers must equal a model of the rules in README.md.
//   3. as header fields ("name:value" per line, OWS trimmed), through extract_credentials (compared with a
//      model) and three Authenticators; an outcome must match where the credentials were routed.
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/arena.h"
#include "http/h1/header.h"
#include "json/parse.h"
#include "json/value.h"
#include "policy/auth/api_key_store.h"
#include "policy/auth/auth_error.h"
#include "policy/auth/authenticator.h"
#include "policy/auth/credentials.h"
#include "policy/auth/jwt_algorithm.h"
#include "policy/auth/jwt_verifier.h"
#include "policy/auth/sha256.h"

namespace slipstream::policy::auth {
namespace {

#define FUZZ_CHECK(cond)                                                                            \
    do {                                                                                            \
        if (!(cond)) {                                                                              \
            std::fprintf(stderr, "auth_token_fuzz: check failed: %s (line %d)\n", #cond, __LINE__); \
            std::abort();                                                                           \
        }                                                                                           \
    } while (0)

// Seeds are signed with this secret and these times (fuzz/corpus/auth_token/).
constexpr std::string_view kSecret = "fuzz-secret-0123456789abcdef0123456789abcdef0123456789abcdefABCD";
constexpr std::int64_t kNow = 1'700'000'000;
constexpr std::string_view kIssuer = "https://issuer.example";
constexpr std::string_view kAudience = "api://slipstream";

// An EC P-256 public key; its private half signed the ES256 seeds and was then discarded.
constexpr std::string_view kEcPublicPem =
    "-----BEGIN PUBLIC KEY-----\n"
    "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEsTflTiy113s/CnxgSoqhifSHmtMq\n"
    "oQ5jpFxJbbWQYJrZazcivs8oSRQhBnEGNFJ6Bo1xyfGpOSoJXdop2M9kGA==\n"
    "-----END PUBLIC KEY-----\n";

const ApiKey kKeys[] = {
    {"alice", "ak_test_8Jq2vN4m0c7LxTz1R5pYb3Wd", "100/s"},
    {"svc.batch:worker-1", "ak_test_Qe9Hs1Xk6Ua2Fo8Zr4Mv0Lc5", "5/m"},
    {"bob@example.com", "ak.test.Wn3Bj7Py1Td5Gk9Cs2Ex6Ha0", ""},  // two dots: a JWT's shape as a bearer token
};

struct Verifiers {
    JwtVerifier hmac = JwtVerifier::from_secret(kSecret);
    JwtVerifier strict = JwtVerifier::from_secret(kSecret, strict_options());
    JwtVerifier ec = JwtVerifier::from_public_key_pem(kEcPublicPem, {}, "fuzz EC key");

    static JwtOptions strict_options() {
        JwtOptions o;
        o.issuer = std::string(kIssuer);
        o.audience = std::string(kAudience);
        o.leeway_seconds = 0;
        o.max_token_bytes = 512;
        o.require_exp = false;
        o.algorithms = {JwtAlgorithm::kHS256};
        return o;
    }
};

struct Authenticators {
    Authenticator both = make(true, true, std::string(kDefaultApiKeyHeader));
    Authenticator jwt_only = make(false, true, std::string(kDefaultApiKeyHeader));
    Authenticator keys_only = make(true, false, "X-Token");

    static Authenticator make(bool keys, bool jwt, std::string header) {
        AuthenticatorConfig c;
        if (keys) c.api_keys.emplace(std::span<const ApiKey>(kKeys));
        if (jwt) c.jwt.emplace(JwtVerifier::from_secret(kSecret));
        c.api_key_header = std::move(header);
        return Authenticator(std::move(c));
    }
};

// ---- Independent helpers: UTF-8, base64url, HMAC-SHA256 ----

bool valid_utf8(std::string_view s) {
    std::size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        std::size_t n = 0;
        std::uint32_t cp = 0;
        if (c < 0x80) {
            ++i;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            n = 1;
            cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            n = 2;
            cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            n = 3;
            cp = c & 0x07;
        } else {
            return false;
        }
        if (i + n >= s.size()) return false;  // truncated sequence
        for (std::size_t k = 1; k <= n; ++k) {
            const auto b = static_cast<unsigned char>(s[i + k]);
            if ((b & 0xC0) != 0x80) return false;
            cp = cp << 6 | (b & 0x3F);
        }
        constexpr std::uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
        if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        i += n + 1;
    }
    return true;
}

std::string b64url(std::string_view bytes) {
    constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    std::string out;
    std::size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        const std::uint32_t n = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16 |
                                static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8 |
                                static_cast<unsigned char>(bytes[i + 2]);
        for (int shift = 18; shift >= 0; shift -= 6)
            out += kAlphabet[(n >> shift) & 0x3F];
    }
    const std::size_t rest = bytes.size() - i;
    if (rest > 0) {
        std::uint32_t n = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
        if (rest == 2) n |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
        out += kAlphabet[(n >> 18) & 0x3F];
        out += kAlphabet[(n >> 12) & 0x3F];
        if (rest == 2) out += kAlphabet[(n >> 6) & 0x3F];
    }
    return out;
}

std::string digest(const detail::Sha256& sha, std::string_view data) {
    std::array<unsigned char, 32> d{};
    FUZZ_CHECK(sha.digest(data, d));
    return std::string(reinterpret_cast<const char*>(d.data()), d.size());
}

// HMAC-SHA256 (RFC 2104) over the project's SHA-256; the secret is at most one 64-byte block.
std::string hmac_sha256(std::string_view input) {
    static const detail::Sha256 sha;
    std::string ipad(64, '\x36');
    std::string opad(64, '\x5c');
    for (std::size_t i = 0; i < kSecret.size(); ++i) {
        ipad[i] = static_cast<char>(ipad[i] ^ kSecret[i]);
        opad[i] = static_cast<char>(opad[i] ^ kSecret[i]);
    }
    return digest(sha, opad + digest(sha, ipad + std::string(input)));
}

// ---- Properties of one verify() answer ----

bool in_closed_set(AuthError e) {
    return e != AuthError::kNone &&
           static_cast<std::uint8_t>(e) <= static_cast<std::uint8_t>(AuthError::kMissingSubject) &&
           !auth_error_code(e).empty() && !auth_error_message(e).empty();
}

void check_result_shape(const JwtVerifier& v, std::string_view token, const JwtResult& r) {
    if (!r.ok()) {
        FUZZ_CHECK(in_closed_set(r.error));
        // Length is checked first, before anything is decoded.
        FUZZ_CHECK((r.error == AuthError::kTokenTooLong) == (token.size() > v.options().max_token_bytes));
        // Credential-level reasons belong to the Authenticator, never to a verifier.
        FUZZ_CHECK(r.error != AuthError::kMalformedCredentials && r.error != AuthError::kUnknownApiKey);
        return;
    }
    FUZZ_CHECK(token.size() <= v.options().max_token_bytes && looks_like_jwt(token));
    FUZZ_CHECK(!r.token.subject.empty() && valid_utf8(r.token.subject));
    FUZZ_CHECK(v.accepts(r.token.algorithm));
    FUZZ_CHECK(r.token.claims != nullptr && r.token.claims->is_object());
    const json::Value* sub = r.token.claims->find("sub");
    FUZZ_CHECK(sub != nullptr && sub->is_string() && sub->as_string() == r.token.subject);
}

void check_deterministic(const JwtVerifier& v, std::string_view token, const JwtResult& first) {
    base::Arena arena;
    const JwtResult again = v.verify(token, kNow, arena);
    FUZZ_CHECK(again.error == first.error);
    if (!first.ok()) return;
    FUZZ_CHECK(again.token.subject == first.token.subject && again.token.algorithm == first.token.algorithm);
    FUZZ_CHECK(json::equal(*again.token.claims, *first.token.claims));
}

// Way 1: the input is the token.
void fuzz_raw_token(const Verifiers& vs, std::string_view token) {
    base::Arena arena;
    const JwtResult hmac = vs.hmac.verify(token, kNow, arena);
    const JwtResult strict = vs.strict.verify(token, kNow, arena);
    const JwtResult ec = vs.ec.verify(token, kNow, arena);
    check_result_shape(vs.hmac, token, hmac);
    check_result_shape(vs.strict, token, strict);
    check_result_shape(vs.ec, token, ec);
    // One token names one algorithm: no token verifies under an HMAC secret and an EC key.
    FUZZ_CHECK(!(ec.ok() && (hmac.ok() || strict.ok())));
    for (const JwtResult* r : {&hmac, &strict}) {
        if (!r->ok()) continue;
        // A random input essentially never verifies: an accepted HS256 token must carry the real HMAC.
        if (r->token.algorithm == JwtAlgorithm::kHS256) {
            const std::size_t dot2 = token.rfind('.');
            FUZZ_CHECK(token.substr(dot2 + 1) == b64url(hmac_sha256(token.substr(0, dot2))));
        }
    }
    if (hmac.ok()) check_deterministic(vs.hmac, token, hmac);
    if (strict.ok()) check_deterministic(vs.strict, token, strict);
    if (ec.ok()) {
        FUZZ_CHECK(ec.token.algorithm == JwtAlgorithm::kES256);
        check_deterministic(vs.ec, token, ec);
    }
}

// ---- Way 2: a model of verify() for tokens this harness signs with HS256 ----

const json::Value* parse_object(std::string_view text, base::Arena& arena) {
    json::ParseOptions options;
    options.duplicate_keys = json::DuplicateKeys::kReject;
    base::Result<const json::Value*> parsed = json::parse(text, arena, options);
    if (!parsed.is_ok() || !parsed.value()->is_object()) return nullptr;
    return parsed.value();
}

// The claim rules of README.md ("JWT rules"), in their order.
AuthError model_claims(const json::Value& claims, const JwtOptions& o) {
    const json::Value* exp = claims.find("exp");
    const json::Value* nbf = claims.find("nbf");
    const json::Value* iat = claims.find("iat");
    const json::Value* iss = claims.find("iss");
    const json::Value* aud = claims.find("aud");
    const json::Value* sub = claims.find("sub");
    for (const json::Value* date : {exp, nbf, iat})
        if (date != nullptr && !date->is_number()) return AuthError::kMalformedToken;
    for (const json::Value* text : {iss, sub})
        if (text != nullptr && !text->is_string()) return AuthError::kMalformedToken;
    bool aud_has = false;
    if (aud != nullptr) {
        if (aud->is_string()) {
            aud_has = aud->as_string() == o.audience;
        } else if (aud->is_array()) {
            for (const json::Value& item : aud->items()) {
                if (!item.is_string()) return AuthError::kMalformedToken;
                aud_has = aud_has || item.as_string() == o.audience;
            }
        } else {
            return AuthError::kMalformedToken;
        }
    }
    const auto now = static_cast<double>(kNow);
    const auto leeway = static_cast<double>(o.leeway_seconds);
    if (exp == nullptr && o.require_exp) return AuthError::kMissingExpiry;
    if (exp != nullptr && !(now < exp->as_double() + leeway)) return AuthError::kExpired;
    if (nbf != nullptr && !(now >= nbf->as_double() - leeway)) return AuthError::kNotYetValid;
    if (iat != nullptr && !(iat->as_double() <= now + leeway)) return AuthError::kNotYetValid;
    if (!o.issuer.empty() && (iss == nullptr || iss->as_string() != o.issuer)) return AuthError::kWrongIssuer;
    if (o.audience.empty() ? aud != nullptr : !aud_has) return AuthError::kWrongAudience;
    if (sub == nullptr || sub->as_string().empty()) return AuthError::kMissingSubject;
    return AuthError::kNone;
}

AuthError model_verify(const JwtVerifier& v, std::string_view header_json, std::string_view claims_json,
                       std::string_view token) {
    if (token.size() > v.options().max_token_bytes) return AuthError::kTokenTooLong;
    if (header_json.empty() || claims_json.empty()) return AuthError::kMalformedToken;  // an empty segment
    base::Arena arena;
    const json::Value* header = parse_object(header_json, arena);
    const json::Value* alg_name = header != nullptr ? header->find("alg") : nullptr;
    if (alg_name == nullptr || !alg_name->is_string()) return AuthError::kMalformedToken;
    const std::optional<JwtAlgorithm> alg = parse_jwt_algorithm(alg_name->as_string());
    if (!alg || !v.accepts(*alg)) return AuthError::kUnsupportedAlgorithm;
    if (header->find("crit") != nullptr) return AuthError::kMalformedToken;
    if (*alg != JwtAlgorithm::kHS256) return AuthError::kBadSignature;  // signed here with HS256 only
    const json::Value* claims = parse_object(claims_json, arena);
    if (claims == nullptr) return AuthError::kMalformedToken;
    return model_claims(*claims, v.options());
}

void fuzz_signed(const Verifiers& vs, std::string_view input) {
    const std::size_t nl = input.find('\n');
    if (nl == std::string_view::npos) return;
    const std::string_view header_json = input.substr(0, nl);
    const std::string_view claims_json = input.substr(nl + 1);
    const std::string signing_input = b64url(header_json) + "." + b64url(claims_json);
    const std::string token = signing_input + "." + b64url(hmac_sha256(signing_input));
    for (const JwtVerifier* v : {&vs.hmac, &vs.strict, &vs.ec}) {
        base::Arena arena;
        const JwtResult r = v->verify(token, kNow, arena);
        check_result_shape(*v, token, r);
        if (v == &vs.ec) {
            FUZZ_CHECK(!r.ok());  // an HMAC-signed token never verifies with the EC key
            continue;
        }
        FUZZ_CHECK(r.error == model_verify(*v, header_json, claims_json, token));
        if (r.ok()) check_deterministic(*v, token, r);
    }
}

// ---- Way 3: header fields through extract_credentials and the Authenticators ----

std::string_view trim_ows(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

std::vector<http::h1::Header> split_fields(std::string_view input) {
    std::vector<http::h1::Header> fields;
    while (!input.empty()) {
        const std::size_t nl = input.find('\n');
        const std::string_view line = input.substr(0, nl);
        input = nl == std::string_view::npos ? std::string_view() : input.substr(nl + 1);
        const std::size_t colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        fields.push_back({line.substr(0, colon), trim_ows(line.substr(colon + 1))});
    }
    return fields;
}

bool ascii_iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        auto x = static_cast<unsigned char>(a[i]);
        auto y = static_cast<unsigned char>(b[i]);
        if (x >= 'A' && x <= 'Z') x = static_cast<unsigned char>(x + 32);
        if (y >= 'A' && y <= 'Z') y = static_cast<unsigned char>(y + 32);
        if (x != y) return false;
    }
    return true;
}

bool visible_ascii(std::string_view s) {
    for (char c : s)
        if (c < 0x21 || c > 0x7E) return false;
    return true;
}

// extract_credentials as its declaration describes it.
Credentials model_credentials(std::span<const http::h1::Header> fields, std::string_view api_key_header) {
    std::vector<std::string_view> authorization;
    std::vector<std::string_view> api_key;
    for (const http::h1::Header& f : fields) {
        if (ascii_iequals(f.name, "authorization")) authorization.push_back(f.value);
        if (!api_key_header.empty() && ascii_iequals(f.name, api_key_header)) api_key.push_back(f.value);
    }
    if (authorization.size() > 1 || api_key.size() > 1 || (!authorization.empty() && !api_key.empty()))
        return {CredentialKind::kMalformed, {}};
    if (!authorization.empty()) {
        const std::string_view v = authorization[0];
        if (v.size() < 8 || !ascii_iequals(v.substr(0, 6), "bearer") || v[6] != ' ' || !visible_ascii(v.substr(7)))
            return {CredentialKind::kMalformed, {}};
        return {CredentialKind::kBearerToken, v.substr(7)};
    }
    if (!api_key.empty()) {
        if (api_key[0].empty() || !visible_ascii(api_key[0])) return {CredentialKind::kMalformed, {}};
        return {CredentialKind::kApiKey, api_key[0]};
    }
    return {};
}

const ApiKey* key_of_principal(std::string_view principal) {
    for (const ApiKey& k : kKeys)
        if (k.principal == principal) return &k;
    return nullptr;
}

void check_authenticator(const Authenticator& a, std::span<const http::h1::Header> fields,
                         std::string_view api_key_header) {
    const std::string_view looked_for = a.api_keys() != nullptr ? api_key_header : std::string_view();
    const Credentials c = extract_credentials(fields, looked_for);
    const Credentials model = model_credentials(fields, looked_for);
    FUZZ_CHECK(c.kind == model.kind && c.value == model.value);

    base::Arena arena;
    const AuthResult r = a.authenticate(fields, kNow, arena);
    FUZZ_CHECK(r.error == AuthError::kNone || in_closed_set(r.error));
    switch (r.outcome) {
        case AuthOutcome::kAnonymous:
            FUZZ_CHECK(c.kind == CredentialKind::kNone && r.error == AuthError::kNone && r.principal.empty());
            FUZZ_CHECK(r.method == AuthMethod::kNone && r.claims == nullptr);
            return;
        case AuthOutcome::kRefused:
            FUZZ_CHECK(r.error != AuthError::kNone && r.principal.empty());
            FUZZ_CHECK((r.error == AuthError::kMalformedCredentials) == (c.kind == CredentialKind::kMalformed));
            break;
        case AuthOutcome::kAuthenticated:
            FUZZ_CHECK(r.error == AuthError::kNone && !r.principal.empty());
            FUZZ_CHECK(c.kind == CredentialKind::kApiKey || c.kind == CredentialKind::kBearerToken);
            break;
    }
    if (c.kind != CredentialKind::kApiKey && c.kind != CredentialKind::kBearerToken) return;

    // Where the credential goes (README "Routing"), and what that answers on its own.
    const bool to_jwt = c.kind == CredentialKind::kBearerToken && a.jwt() != nullptr &&
                        (looks_like_jwt(c.value) || a.api_keys() == nullptr);
    if (to_jwt) {
        base::Arena direct_arena;
        const JwtResult direct = a.jwt()->verify(c.value, kNow, direct_arena);
        FUZZ_CHECK(r.error == direct.error);
        if (r.outcome == AuthOutcome::kAuthenticated) {
            FUZZ_CHECK(r.method == AuthMethod::kJwt && r.principal == direct.token.subject && r.rate.empty());
            FUZZ_CHECK(r.claims != nullptr && json::equal(*r.claims, *direct.token.claims));
        }
        return;
    }
    FUZZ_CHECK(a.api_keys() != nullptr);
    const ApiKeyEntry* entry = a.api_keys()->find(c.value);
    if (entry == nullptr) {
        FUZZ_CHECK(r.outcome == AuthOutcome::kRefused && r.error == AuthError::kUnknownApiKey);
        return;
    }
    // An API key authenticates as its own principal only: the one whose key was presented.
    const ApiKey* key = key_of_principal(r.principal);
    FUZZ_CHECK(r.outcome == AuthOutcome::kAuthenticated && r.method == AuthMethod::kApiKey);
    FUZZ_CHECK(key != nullptr && key->key == c.value && r.rate == key->rate && r.claims == nullptr);
    FUZZ_CHECK(r.principal == entry->principal);
}

void fuzz_fields(const Authenticators& as, std::string_view input) {
    const std::vector<http::h1::Header> fields = split_fields(input);
    check_authenticator(as.both, fields, kDefaultApiKeyHeader);
    check_authenticator(as.jwt_only, fields, kDefaultApiKeyHeader);
    check_authenticator(as.keys_only, fields, "X-Token");
}

}  // namespace
}  // namespace slipstream::policy::auth

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace slipstream::policy::auth;
    // Built once per process: a fuzz harness is the one place a function-local static is fine.
    static const Verifiers verifiers;
    static const Authenticators authenticators;
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    fuzz_raw_token(verifiers, input);
    fuzz_signed(verifiers, input);
    fuzz_fields(authenticators, input);
    return 0;
}
