// TlsStream and TlsContext over a socketpair, against an OpenSSL client driven in the same thread.
#include "net/tls/tls_stream.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "net/tls/test_pki.h"
#include "net/tls/tls_context.h"
#include "net/tls/tls_context_store.h"

namespace slipstream::net::tls {
namespace {

const TestPki& pki() {
    static const TestPki p = make_test_pki(testing::TempDir() + "/tls_stream_test_pki");
    return p;
}

TlsConfig server_config(std::vector<std::string> alpn = {"h2", "http/1.1"}) {
    TlsConfig c;
    c.cert_file = pki().server_cert;
    c.key_file = pki().server_key;
    c.alpn = std::move(alpn);
    return c;
}

struct ClientOptions {
    std::string alpn_wire;  // length-prefixed
    int max_version = 0;    // 0: any
    bool with_cert = false;
    SSL_SESSION* session = nullptr;
};

// One in-process TLS conversation: a server TlsStream and an OpenSSL client on a non-blocking socketpair.
class Pair {
  public:
    Pair(std::shared_ptr<const TlsContext> ctx, const ClientOptions& o) {
        int fds[2];
        EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds), 0);
        server_fd_ = fds[0];
        client_fd_ = fds[1];
        auto s = TlsStream::accept(std::move(ctx), server_fd_);
        EXPECT_TRUE(s.is_ok());
        server = std::move(s).value();
        client_ctx_ = SSL_CTX_new(TLS_client_method());
        SSL_CTX_load_verify_locations(client_ctx_, pki().ca_cert.c_str(), nullptr);
        SSL_CTX_set_verify(client_ctx_, SSL_VERIFY_PEER, nullptr);
        if (o.max_version) SSL_CTX_set_max_proto_version(client_ctx_, o.max_version);
        if (o.with_cert) {
            SSL_CTX_use_certificate_file(client_ctx_, pki().client_cert.c_str(), SSL_FILETYPE_PEM);
            SSL_CTX_use_PrivateKey_file(client_ctx_, pki().client_key.c_str(), SSL_FILETYPE_PEM);
        }
        client = SSL_new(client_ctx_);
        SSL_set_fd(client, client_fd_);
        SSL_set_tlsext_host_name(client, "localhost");
        if (!o.alpn_wire.empty())
            SSL_set_alpn_protos(client, reinterpret_cast<const unsigned char*>(o.alpn_wire.data()),
                                static_cast<unsigned>(o.alpn_wire.size()));
        if (o.session) SSL_set_session(client, o.session);
        SSL_set_connect_state(client);
    }
    ~Pair() {
        // A clean close on both sides: OpenSSL marks a session not resumable when its SSL is freed without one.
        if (SSL_is_init_finished(client)) SSL_shutdown(client);
        server->close_notify();
        SSL_free(client);
        SSL_CTX_free(client_ctx_);
        server.reset();
        ::close(server_fd_);
        ::close(client_fd_);
    }

    // Steps both sides until the server's handshake ends. Returns the server's last outcome.
    base::Status handshake() {
        for (int i = 0; i < 100; ++i) {
            ERR_clear_error();
            int c = SSL_do_handshake(client);
            client_failed = c <= 0 && SSL_get_error(client, c) != SSL_ERROR_WANT_READ &&
                            SSL_get_error(client, c) != SSL_ERROR_WANT_WRITE;
            auto r = server->handshake();
            if (!r.is_ok()) return r.status();
            if (*r == TlsStream::Progress::kDone && c == 1) return base::Status::ok();
            if (client_failed && *r != TlsStream::Progress::kDone) return base::Status::cancelled("client failed");
        }
        return base::Status::timeout("handshake did not finish");
    }
    // Reads on the client until `n` bytes arrived (the client also processes post-handshake messages).
    std::string client_read(std::size_t n) {
        std::string out;
        char buf[16384];
        for (int i = 0; i < 10000 && out.size() < n; ++i) {
            std::size_t got = 0;
            if (SSL_read_ex(client, buf, sizeof buf, &got) == 1)
                out.append(buf, got);
            else
                pump_server_writes();
        }
        return out;
    }
    void pump_server_writes() {
        while (!pending.empty()) {
            auto w = server->write(pending);
            if (!w.is_ok()) return;
            pending.erase(0, *w);
        }
    }

    std::unique_ptr<TlsStream> server;
    SSL* client = nullptr;
    bool client_failed = false;
    std::string pending;  // server output not yet taken by the socket

  private:
    int server_fd_ = -1;
    int client_fd_ = -1;
    SSL_CTX* client_ctx_ = nullptr;
};

std::string wire(std::initializer_list<std::string_view> protos) {
    std::string w;
    for (auto p : protos) {
        w.push_back(static_cast<char>(p.size()));
        w.append(p);
    }
    return w;
}

TEST(TlsContext, RefusesMissingOrMismatchedFiles) {
    struct Case {
        std::string cert, key, ca;
        std::string message_part;
    } cases[] = {
        {"", pki().server_key, "", "both a certificate file and a key file are required"},
        {"/nonexistent/cert.pem", pki().server_key, "", "cannot load certificate file /nonexistent/cert.pem"},
        {pki().server_cert, "/nonexistent/key.pem", "", "cannot load key file /nonexistent/key.pem"},
        {pki().server_cert, pki().client_key, "", "key values mismatch"},
        {pki().server_cert, pki().server_key, "/nonexistent/ca.pem", "cannot load client CA file"},
    };
    for (const Case& c : cases) {
        TlsConfig cfg;
        cfg.cert_file = c.cert;
        cfg.key_file = c.key;
        cfg.client_ca_file = c.ca;
        auto r = TlsContext::create(cfg);
        ASSERT_FALSE(r.is_ok()) << c.message_part;
        EXPECT_TRUE(r.status().is_invalid_argument());
        EXPECT_NE(r.status().message().find(c.message_part), std::string::npos) << r.status().message();
    }
}

TEST(TlsStream, AlpnFollowsServerPreference) {
    struct Case {
        std::vector<std::string> server;
        std::string client;
        std::string_view expected;
    } cases[] = {
        {{"h2", "http/1.1"}, wire({"http/1.1", "h2"}), "h2"},
        {{"h2", "http/1.1"}, wire({"http/1.1"}), "http/1.1"},
        {{"http/1.1"}, wire({"h2", "http/1.1"}), "http/1.1"},
        {{"http/1.1"}, wire({"h2"}), ""},  // no overlap: no ALPN, the connection goes on
        {{"h2", "http/1.1"}, "", ""},
    };
    for (const Case& c : cases) {
        auto ctx = TlsContext::create(server_config(c.server));
        ASSERT_TRUE(ctx.is_ok()) << ctx.status().to_string();
        Pair p(*ctx, ClientOptions{c.client, 0, false, nullptr});
        ASSERT_TRUE(p.handshake().is_ok());
        EXPECT_EQ(p.server->alpn(), c.expected);
    }
}

TEST(TlsStream, NegotiatesTls12AndTls13) {
    auto ctx = TlsContext::create(server_config());
    ASSERT_TRUE(ctx.is_ok());
    struct Case {
        int max;
        std::string_view version;
    } cases[] = {{TLS1_2_VERSION, "TLSv1.2"}, {0, "TLSv1.3"}};
    for (const Case& c : cases) {
        Pair p(*ctx, ClientOptions{"", c.max, false, nullptr});
        ASSERT_TRUE(p.handshake().is_ok());
        EXPECT_EQ(p.server->version(), c.version);
    }
}

TEST(TlsStream, RefusesTls11) {
    auto ctx = TlsContext::create(server_config());
    ASSERT_TRUE(ctx.is_ok());
    Pair p(*ctx, ClientOptions{"", TLS1_1_VERSION, false, nullptr});
    base::Status s = p.handshake();
    EXPECT_FALSE(s.is_ok());
}

TEST(TlsStream, ClientCertificateRequiredWhenCaSet) {
    TlsConfig cfg = server_config();
    cfg.client_ca_file = pki().ca_cert;
    auto ctx = TlsContext::create(cfg);
    ASSERT_TRUE(ctx.is_ok()) << ctx.status().to_string();
    {
        Pair p(*ctx, ClientOptions{"", 0, true, nullptr});
        ASSERT_TRUE(p.handshake().is_ok());
        EXPECT_TRUE(p.server->peer_verified());
    }
    {
        Pair p(*ctx, ClientOptions{"", 0, false, nullptr});
        base::Status s = p.handshake();
        ASSERT_FALSE(s.is_ok());
        EXPECT_NE(s.message().find("certificate"), std::string::npos) << s.message();
    }
}

TEST(TlsStream, RoundTripsLargeDataAndReportsEof) {
    auto ctx = TlsContext::create(server_config());
    ASSERT_TRUE(ctx.is_ok());
    Pair p(*ctx, {});
    ASSERT_TRUE(p.handshake().is_ok());
    std::string big(300 * 1024, 'x');
    for (std::size_t i = 0; i < big.size(); ++i)
        big[i] = static_cast<char>('a' + i % 26);
    p.pending = big;
    p.pump_server_writes();
    EXPECT_EQ(p.client_read(big.size()), big);

    std::size_t written = 0;
    ASSERT_EQ(SSL_write_ex(p.client, "hello", 5, &written), 1);
    char buf[3];
    auto r = p.server->read(buf);  // a short buffer: the rest stays inside OpenSSL
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(std::string(buf, *r), "hel");
    EXPECT_TRUE(p.server->has_buffered_input());
    r = p.server->read(buf);
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(std::string(buf, *r), "lo");
    r = p.server->read(buf);
    EXPECT_TRUE(!r.is_ok() && r.status().is_unavailable());

    SSL_shutdown(p.client);
    r = p.server->read(buf);
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(*r, 0u);
}

// Records that arrived together come out of one read(); released buffers never lose bytes: they stay while
// OpenSSL holds data, and come back for the next record.
TEST(TlsStream, ReadsWholeBatchesAndReleasesOnlyEmptyBuffers) {
    auto ctx = TlsContext::create(server_config());
    ASSERT_TRUE(ctx.is_ok());
    Pair p(*ctx, ClientOptions{});
    ASSERT_TRUE(p.handshake().is_ok());
    std::size_t written = 0;
    for (std::string_view record : {"one", "two", "three"})
        ASSERT_EQ(SSL_write_ex(p.client, record.data(), record.size(), &written), 1);
    char buf[64];
    auto r = p.server->read(buf);
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(std::string(buf, *r), "onetwothree");
    EXPECT_FALSE(p.server->has_buffered_input());
    r = p.server->read(buf);
    EXPECT_TRUE(!r.is_ok() && r.status().is_unavailable());

    p.server->release_buffers();  // nothing held: freed
    ASSERT_EQ(SSL_write_ex(p.client, "hello", 5, &written), 1);
    r = p.server->read({buf, 3});
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(std::string(buf, *r), "hel");
    p.server->release_buffers();  // "lo" is still inside OpenSSL: kept
    EXPECT_TRUE(p.server->has_buffered_input());
    r = p.server->read(buf);
    ASSERT_TRUE(r.is_ok());
    EXPECT_EQ(std::string(buf, *r), "lo");
    p.pending = "answer";
    p.pump_server_writes();  // the write buffer comes back too
    EXPECT_EQ(p.client_read(6), "answer");
}

// Resumption works within a context, and across a reload when the ticket keys are carried over.
TEST(TlsStream, SessionResumptionSurvivesReload) {
    auto first = TlsContext::create(server_config());
    ASSERT_TRUE(first.is_ok());
    TlsContextStore store(*first);
    for (int max : {TLS1_2_VERSION, 0}) {
        SSL_SESSION* session = nullptr;
        {
            Pair p(store.current(), ClientOptions{"", max, false, nullptr});
            ASSERT_TRUE(p.handshake().is_ok());
            EXPECT_FALSE(p.server->session_reused());
            p.pending = "x";
            p.pump_server_writes();
            ASSERT_EQ(p.client_read(1), "x");  // TLS 1.3 tickets arrive after the handshake
            session = SSL_get1_session(p.client);
        }
        ASSERT_NE(session, nullptr);
        {
            Pair p(store.current(), ClientOptions{"", max, false, session});
            ASSERT_TRUE(p.handshake().is_ok());
            EXPECT_TRUE(p.server->session_reused()) << "same context, max version " << max;
        }
        auto reloaded = TlsContext::create(server_config(), store.current().get());
        ASSERT_TRUE(reloaded.is_ok());
        store.replace(*reloaded);
        {
            Pair p(store.current(), ClientOptions{"", max, false, session});
            ASSERT_TRUE(p.handshake().is_ok());
            EXPECT_TRUE(p.server->session_reused()) << "max version " << max;
        }
        SSL_SESSION_free(session);
    }
}

// Client streams (TlsStream::connect) against a server TlsStream on a socketpair, both stepped in this thread.
struct ClientPairResult {
    base::Status client;
    base::Status server;
    std::string alpn;
};

ClientPairResult client_handshake(const TlsClientConfig& cc, std::string_view host,
                                  std::vector<std::string> server_alpn = {"h2", "http/1.1"},
                                  const TestPki* server_pki = nullptr) {
    const TestPki& sp = server_pki != nullptr ? *server_pki : pki();
    TlsConfig sc;
    sc.cert_file = sp.server_cert;
    sc.key_file = sp.server_key;
    sc.alpn = std::move(server_alpn);
    auto sctx = TlsContext::create(sc);
    auto cctx = TlsContext::create_client(cc);
    EXPECT_TRUE(sctx.is_ok() && cctx.is_ok());
    int fds[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds), 0);
    auto server = TlsStream::accept(*sctx, fds[0]);
    auto client = TlsStream::connect(*cctx, fds[1], host);
    EXPECT_TRUE(server.is_ok() && client.is_ok());
    ClientPairResult out;
    bool c_done = false;
    bool s_done = false;
    for (int i = 0; i < 100 && !(c_done && s_done) && out.client.is_ok() && out.server.is_ok(); ++i) {
        if (!c_done) {
            auto r = (*client)->handshake();
            if (!r.is_ok())
                out.client = r.status();
            else
                c_done = *r == TlsStream::Progress::kDone;
        }
        if (!s_done) {
            auto r = (*server)->handshake();
            if (!r.is_ok())
                out.server = r.status();
            else
                s_done = *r == TlsStream::Progress::kDone;
        }
    }
    if (c_done && s_done) {
        out.alpn = std::string((*client)->alpn());
        EXPECT_TRUE((*client)->peer_verified() || !cc.verify);
        // Data both ways.
        EXPECT_TRUE((*client)->write("ping").is_ok());
        char buf[16];
        auto n = (*server)->read(buf);
        EXPECT_TRUE(n.is_ok() && *n == 4);
        EXPECT_TRUE((*server)->write("pong").is_ok());
        n = (*client)->read(buf);
        EXPECT_TRUE(n.is_ok() && *n == 4 && std::string_view(buf, 4) == "pong");
    }
    client->reset();
    server->reset();
    ::close(fds[0]);
    ::close(fds[1]);
    return out;
}

TEST(TlsClient, VerifiesChainAndName) {
    TlsClientConfig cc;
    cc.ca_file = pki().ca_cert;
    cc.alpn = {"h2", "http/1.1"};
    ClientPairResult ok = client_handshake(cc, "localhost");
    EXPECT_TRUE(ok.client.is_ok()) << ok.client.to_string();
    EXPECT_EQ(ok.alpn, "h2");
    ClientPairResult ip = client_handshake(cc, "127.0.0.1");  // the certificate's IP address entry
    EXPECT_TRUE(ip.client.is_ok()) << ip.client.to_string();
    ClientPairResult name = client_handshake(cc, "example.com");
    EXPECT_TRUE(name.client.is_invalid_argument());
    EXPECT_NE(name.client.message().find("hostname mismatch"), std::string::npos) << name.client.message();
    ClientPairResult addr = client_handshake(cc, "127.0.0.2");
    EXPECT_NE(addr.client.message().find("IP address mismatch"), std::string::npos) << addr.client.message();
    TlsClientConfig other = cc;
    other.ca_file = pki().other_ca_cert;
    ClientPairResult unknown = client_handshake(other, "localhost");
    EXPECT_TRUE(unknown.client.is_invalid_argument());
    EXPECT_NE(unknown.client.message().find("certificate"), std::string::npos) << unknown.client.message();
    // The system store does not know the test CA.
    TlsClientConfig system;
    ClientPairResult sys = client_handshake(system, "localhost");
    EXPECT_FALSE(sys.client.is_ok());
    // Without verification anything goes.
    TlsClientConfig off;
    off.verify = false;
    EXPECT_TRUE(client_handshake(off, "example.com").client.is_ok());
}

TEST(TlsClient, AlpnOfferAndRefusals) {
    TlsClientConfig cc;
    cc.ca_file = pki().ca_cert;
    cc.alpn = {"http/1.1"};
    EXPECT_EQ(client_handshake(cc, "localhost").alpn, "http/1.1");
    cc.alpn = {};
    EXPECT_EQ(client_handshake(cc, "localhost").alpn, "");
    TlsClientConfig bad;
    bad.ca_file = "/nonexistent/ca.pem";
    EXPECT_TRUE(TlsContext::create_client(bad).status().is_invalid_argument());
    TlsClientConfig half;
    half.cert_file = pki().client_cert;
    EXPECT_TRUE(TlsContext::create_client(half).status().is_invalid_argument());
    auto server_ctx = TlsContext::create(server_config());
    ASSERT_TRUE(server_ctx.is_ok());
    EXPECT_TRUE(TlsStream::connect(*server_ctx, 0, "localhost").status().is_invalid_argument());
}

}  // namespace
}  // namespace slipstream::net::tls
