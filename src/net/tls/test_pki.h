// TestPki: a throwaway CA, server and client certificate written as PEM files, for tests only.
#pragma once

#include <string>

namespace slipstream::net::tls {

/// Files written under `dir` (created if missing). Keys are fresh P-256 keys made at test time: nothing
/// secret is committed. The server certificate is for "localhost" and 127.0.0.1.
struct TestPki {
    std::string ca_cert;
    std::string server_cert;
    std::string server_key;
    std::string client_cert;
    std::string client_key;
    std::string other_ca_cert;  // a CA that signed nothing here (for "unknown CA" cases)
};

/// Throws std::runtime_error when OpenSSL or the file system fails (test set-up).
TestPki make_test_pki(const std::string& dir, const std::string& server_cn = "localhost");

}  // namespace slipstream::net::tls
