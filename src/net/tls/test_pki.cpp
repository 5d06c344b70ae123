// TestPki: certificates made with OpenSSL's X509 API at test time.
#include "net/tls/test_pki.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>

namespace slipstream::net::tls {
namespace {

struct KeyFree {
    void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct CertFree {
    void operator()(X509* c) const { X509_free(c); }
};
using Key = std::unique_ptr<EVP_PKEY, KeyFree>;
using Cert = std::unique_ptr<X509, CertFree>;

Key new_key() {
    Key k(EVP_EC_gen("P-256"));
    if (!k) throw std::runtime_error("EVP_EC_gen failed");
    return k;
}

void add_ext(X509* cert, X509* issuer, int nid, const char* value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
    if (ext == nullptr) throw std::runtime_error("X509V3_EXT_conf_nid failed");
    X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
}

// Issues a certificate for `key`; self-signed when `issuer` is null.
Cert issue(EVP_PKEY* key, const char* cn, X509* issuer, EVP_PKEY* issuer_key, bool ca, const char* san, long serial) {
    Cert c(X509_new());
    X509_set_version(c.get(), 2);
    ASN1_INTEGER_set(X509_get_serialNumber(c.get()), serial);
    X509_gmtime_adj(X509_getm_notBefore(c.get()), -3600);
    X509_gmtime_adj(X509_getm_notAfter(c.get()), 7L * 24 * 3600);
    X509_set_pubkey(c.get(), key);
    X509_NAME* name = X509_get_subject_name(c.get());
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn), -1, -1, 0);
    X509* signer = issuer ? issuer : c.get();
    X509_set_issuer_name(c.get(), X509_get_subject_name(signer));
    add_ext(c.get(), signer, NID_basic_constraints, ca ? "critical,CA:TRUE" : "CA:FALSE");
    add_ext(c.get(), signer, NID_key_usage, ca ? "critical,keyCertSign,cRLSign" : "critical,digitalSignature");
    add_ext(c.get(), signer, NID_subject_key_identifier, "hash");
    if (san != nullptr) add_ext(c.get(), signer, NID_subject_alt_name, san);
    if (X509_sign(c.get(), issuer_key ? issuer_key : key, EVP_sha256()) == 0)
        throw std::runtime_error("X509_sign failed");
    return c;
}

void write_file(const std::string& path, const std::function<int(FILE*)>& fn) {
    FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) throw std::runtime_error("cannot write " + path);
    int ok = fn(f);
    std::fclose(f);
    if (ok != 1) throw std::runtime_error("PEM write failed for " + path);
}

void write_cert(const std::string& path, X509* cert) {
    write_file(path, [&](FILE* f) { return PEM_write_X509(f, cert); });
}

void write_key(const std::string& path, EVP_PKEY* key) {
    write_file(path, [&](FILE* f) { return PEM_write_PrivateKey(f, key, nullptr, nullptr, 0, nullptr, nullptr); });
}

}  // namespace

TestPki make_test_pki(const std::string& dir, const std::string& server_cn) {
    std::filesystem::create_directories(dir);
    TestPki p;
    p.ca_cert = dir + "/ca.pem";
    p.server_cert = dir + "/server.pem";
    p.server_key = dir + "/server.key";
    p.client_cert = dir + "/client.pem";
    p.client_key = dir + "/client.key";
    p.other_ca_cert = dir + "/other-ca.pem";

    Key ca_key = new_key();
    Cert ca = issue(ca_key.get(), "slipstream test CA", nullptr, nullptr, true, nullptr, 1);
    Key server_key = new_key();
    std::string san = "DNS:" + server_cn + ",IP:127.0.0.1";
    Cert server = issue(server_key.get(), server_cn.c_str(), ca.get(), ca_key.get(), false, san.c_str(), 2);
    Key client_key = new_key();
    Cert client = issue(client_key.get(), "slipstream test client", ca.get(), ca_key.get(), false, nullptr, 3);
    Key other_key = new_key();
    Cert other = issue(other_key.get(), "unrelated CA", nullptr, nullptr, true, nullptr, 4);

    write_cert(p.ca_cert, ca.get());
    write_cert(p.server_cert, server.get());
    write_key(p.server_key, server_key.get());
    write_cert(p.client_cert, client.get());
    write_key(p.client_key, client_key.get());
    write_cert(p.other_ca_cert, other.get());
    return p;
}

}  // namespace slipstream::net::tls
