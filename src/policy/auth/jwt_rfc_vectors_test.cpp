// JwtVerifier against the published examples of RFC 7515 appendix A and RFC 8037 appendix A: tokens signed
// by other implementations, so signature checking (ECDSA r || s conversion included) is tested independently
// of the test's own signer.
#include <openssl/err.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "policy/auth/jwt_verifier.h"

namespace slipstream::policy::auth {
namespace {

// The examples' claims: {"iss":"joe",\r\n "exp":1300819380,\r\n "http://example.com/is_root":true}. They have no
// `sub`, so a token whose signature and exp pass is answered kMissingSubject.
constexpr std::string_view kClaims =
    "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ";
constexpr std::int64_t kBeforeExp = 1300819300;
constexpr std::int64_t kAfterExp = 1300819380 + 60;

// RFC 7515 A.1: HS256; the key is the JWK "k" value, decoded.
constexpr std::string_view kHs256Key =
    "\x03\x23\x35\x4b\x2b\x0f\xa5\xbc\x83\x7e\x06\x65\x77\x7b\xa6\x8f\x5a\xb3\x28\xe6\xf0\x54\xc9\x28\xa9\x0f\x84\xb2"
    "\xd2\x50\x2e\xbf\xd3\xfb\x5a\x92\xd2\x06\x47\xef\x96\x8a\xb4\xc3\x77\x62\x3d\x22\x3d\x2e\x21\x72\x05\x2e\x4f\x08"
    "\xc0\xcd\x9a\xf5\x67\xd0\x80\xa3";
constexpr std::string_view kHs256Token =
    "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9."
    "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ."
    "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";

// RFC 7515 A.2: RS256; the JWK's n and e as a SubjectPublicKeyInfo.
constexpr std::string_view kRsaPem =
    "-----BEGIN PUBLIC KEY-----\n"
    "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAofgWCuLjybRlzo0tZWJj\n"
    "NiuSfb4p4fAkd/wWJcyQoTbji9k0l8W26mPddxHmfHQp+Vaw+4qPCJrcS2mJPMEz\n"
    "P1Pt0Bm4d4QlL+yRT+SFd2lZS+pCgNMsD1W/YpRPEwOWvG6b32690r2jZ47soMZo\n"
    "9wGzjb/7OMg0LOL+bSf63kpaSHSXndS5z5rexMdbBYUsLA9e+KXBdQOS+UTo7WTB\n"
    "EMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6/I5IhlJH7aGhyxX\n"
    "FvUK+DWNmoudF8NAco9/h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXp\n"
    "oQIDAQAB\n"
    "-----END PUBLIC KEY-----\n";
constexpr std::string_view kRs256Signature =
    "cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1"
    "dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzD"
    "wusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe7"
    "7Rw";

// RFC 7515 A.3: ES256 (P-256), signature r || s.
constexpr std::string_view kP256Pem =
    "-----BEGIN PUBLIC KEY-----\n"
    "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEf83OJ3D2xF1Bg8vub9tLe1gHMzV7\n"
    "6e8Tus9uPHvRVEXH8UTNG72bfocs3+257rn0s2ldbqkLJK2KRiMohYjlrQ==\n"
    "-----END PUBLIC KEY-----\n";
constexpr std::string_view kEs256Signature =
    "DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q";

// RFC 7515 A.4: ES512 (P-521) over the payload "Payload", which is not a claims object.
constexpr std::string_view kP521Pem =
    "-----BEGIN PUBLIC KEY-----\n"
    "MIGbMBAGByqGSM49AgEGBSuBBAAjA4GGAAQB6SkFDxJPxrxVx9U5M2Xfne9KsMIs\n"
    "sleY+TTrBOPGuuNwGlenkQ6dgb82MVno68sVXWNJ9L22zPipTFxZx6rBAaQANKZE\n"
    "DjdnUNI3H9G9wsjztx0vTuXqNDLIFcyjFWD+XZOH7HdLVYOGMOXLv1qMvgqR3QBk\n"
    "xpmaH25uZ/rd7eTIyPY=\n"
    "-----END PUBLIC KEY-----\n";
constexpr std::string_view kEs512Token =
    "eyJhbGciOiJFUzUxMiJ9.UGF5bG9hZA."
    "AdwMgeerwtHoh-l192l60hp9wAHZFVJbLfD_UxMi70cwnZOYaRI1bKPWROc-mZZqwqT2SI-KGDKB34XO0aw_7XdtAG8GaSwFKdCAPZgoXD2YBJZC"
    "PEX3xKpRwcdOO8KpEHwJjyqOgzDO7iKvU8vcnwNrmxYbSW9ERBXukOXolLzeO_Jn";

// RFC 8037 A.4: Ed25519 over "Example of Ed25519 signing", also not a claims object.
constexpr std::string_view kEd25519Pem =
    "-----BEGIN PUBLIC KEY-----\n"
    "MCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=\n"
    "-----END PUBLIC KEY-----\n";
constexpr std::string_view kEd25519Token =
    "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc."
    "hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg";

// RFC 7515 A.5: the unsecured example.
constexpr std::string_view kNoneToken =
    "eyJhbGciOiJub25lIn0."
    "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.";

std::string tampered(std::string_view token) {
    std::string t(token);
    char& c = t[t.rfind('.') + 1];
    c = c == 'A' ? 'B' : 'A';
    return t;
}

struct Vector {
    std::string name;
    JwtVerifier verifier;
    std::string token;
    AuthError before_exp;  // verdict at kBeforeExp: the first rule after the signature that fails
};

std::vector<Vector> vectors() {
    std::vector<Vector> v;
    v.push_back(
        {"A.1 HS256", JwtVerifier::from_secret(kHs256Key), std::string(kHs256Token), AuthError::kMissingSubject});
    v.push_back({"A.2 RS256", JwtVerifier::from_public_key_pem(kRsaPem),
                 "eyJhbGciOiJSUzI1NiJ9." + std::string(kClaims) + "." + std::string(kRs256Signature),
                 AuthError::kMissingSubject});
    v.push_back({"A.3 ES256", JwtVerifier::from_public_key_pem(kP256Pem),
                 "eyJhbGciOiJFUzI1NiJ9." + std::string(kClaims) + "." + std::string(kEs256Signature),
                 AuthError::kMissingSubject});
    v.push_back({"A.4 ES512", JwtVerifier::from_public_key_pem(kP521Pem), std::string(kEs512Token),
                 AuthError::kMalformedToken});
    v.push_back({"RFC 8037 EdDSA", JwtVerifier::from_public_key_pem(kEd25519Pem), std::string(kEd25519Token),
                 AuthError::kMalformedToken});
    return v;
}

TEST(JwtRfcVectorsTest, PublishedSignaturesVerify) {
    base::Arena arena;
    for (const Vector& v : vectors()) {
        SCOPED_TRACE(v.name);
        EXPECT_EQ(v.verifier.verify(v.token, kBeforeExp, arena).error, v.before_exp);
        EXPECT_EQ(v.verifier.verify(tampered(v.token), kBeforeExp, arena).error, AuthError::kBadSignature);
        EXPECT_EQ(ERR_peek_error(), 0u);  // a failed verification leaves no OpenSSL error behind
        EXPECT_EQ(v.verifier.verify(kNoneToken, kBeforeExp, arena).error, AuthError::kUnsupportedAlgorithm);
    }
}

TEST(JwtRfcVectorsTest, ClaimsWithCrLfWhitespaceAreRead) {
    base::Arena arena;
    for (const Vector& v : vectors()) {
        if (v.before_exp != AuthError::kMissingSubject) continue;
        SCOPED_TRACE(v.name);
        EXPECT_EQ(v.verifier.verify(v.token, kAfterExp - 1, arena).error, AuthError::kMissingSubject);
        EXPECT_EQ(v.verifier.verify(v.token, kAfterExp, arena).error, AuthError::kExpired);
    }
    JwtOptions joe;
    joe.issuer = "bob";
    EXPECT_EQ(JwtVerifier::from_secret(kHs256Key, joe).verify(kHs256Token, kBeforeExp, arena).error,
              AuthError::kWrongIssuer);
}

}  // namespace
}  // namespace slipstream::policy::auth
