// seal_request_state() / open_request_state(): JSON payload, HMAC-SHA256 (OpenSSL), standard base64.
#include "agent/mcp/request_state.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "agent/mcp/base64.h"
#include "agent/mcp/jsonrpc.h"
#include "base/hex.h"
#include "json/writer.h"

namespace slipstream::mcp::detail {

namespace {

std::string hmac(std::string_view data, std::string_view key) {
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
             reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &n) == nullptr)
        return {};
    return std::string(reinterpret_cast<const char*>(out), n);
}

}  // namespace

std::string request_digest(std::string_view method, std::string_view name, std::string_view arguments_json) {
    std::string text;
    text.reserve(method.size() + name.size() + arguments_json.size() + 2);
    text.append(method).push_back('\0');
    text.append(name).push_back('\0');
    text.append(arguments_json);
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (EVP_Digest(text.data(), text.size(), md, &n, EVP_sha256(), nullptr) != 1) return {};
    return base::hex(std::string_view(reinterpret_cast<const char*>(md), n));
}

std::string seal_request_state(const RequestState& state, std::string_view key) {
    std::string payload;
    json::Writer w(payload);
    w.begin_object();
    w.key("p");
    w.string(state.principal);
    w.key("d");
    w.string(state.digest);
    w.key("e");
    w.int64(state.expires_ms);
    w.key("a");
    w.begin_object();
    for (const auto& [k, v] : state.answers) {
        w.key(k);
        w.raw(v);
    }
    w.end_object();
    w.end_object();
    return encode_base64(payload) + "." + encode_base64(hmac(payload, key));
}

std::optional<RequestState> open_request_state(std::string_view sealed, std::string_view key) {
    const std::size_t dot = sealed.find('.');
    if (dot == std::string_view::npos) return std::nullopt;
    const auto payload = decode_base64(sealed.substr(0, dot));
    const auto mac = decode_base64(sealed.substr(dot + 1));
    if (!payload || !mac) return std::nullopt;
    const std::string expected = hmac(*payload, key);
    if (expected.empty() || mac->size() != expected.size() ||
        CRYPTO_memcmp(mac->data(), expected.data(), expected.size()) != 0)
        return std::nullopt;
    Document doc;
    auto parsed = json::parse(*payload, doc.arena);
    if (!parsed.is_ok() || !parsed.value()->is_object()) return std::nullopt;
    const json::Value& v = *parsed.value();
    const json::Value* p = v.find("p");
    const json::Value* d = v.find("d");
    const json::Value* e = v.find("e");
    const json::Value* a = v.find("a");
    if (p == nullptr || !p->is_string() || d == nullptr || !d->is_string() || e == nullptr || !e->is_integer() ||
        a == nullptr || !a->is_object())
        return std::nullopt;
    RequestState out;
    out.principal = p->as_string();
    out.digest = d->as_string();
    out.expires_ms = static_cast<std::int64_t>(e->as_double());  // ms since 1970: exact in a double
    for (const json::Member& m : a->members())
        out.answers.emplace(std::string(m.key), to_json(m.value));
    return out;
}

std::string random_state_key() {
    std::string key(32, '\0');
    if (RAND_bytes(reinterpret_cast<unsigned char*>(key.data()), static_cast<int>(key.size())) != 1) return {};
    return key;
}

}  // namespace slipstream::mcp::detail
