// extract_credentials: one pass over the header fields, then the Bearer syntax.
#include "policy/auth/credentials.h"

namespace slipstream::policy::auth {
namespace {

bool is_visible_ascii(std::string_view s) {
    for (char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x21 || c > 0x7E) return false;
    }
    return true;
}

// The token of "Bearer <token>", or an empty view when `value` is not exactly that.
std::string_view bearer_token(std::string_view value) {
    constexpr std::string_view kScheme = "Bearer";
    if (value.size() <= kScheme.size() + 1 || value[kScheme.size()] != ' ') return {};
    if (!http::h1::iequals(value.substr(0, kScheme.size()), kScheme)) return {};
    const std::string_view token = value.substr(kScheme.size() + 1);
    return is_visible_ascii(token) ? token : std::string_view();
}

}  // namespace

Credentials extract_credentials(std::span<const http::h1::Header> headers, std::string_view api_key_header) {
    const http::h1::Header* authorization = nullptr;
    const http::h1::Header* api_key = nullptr;
    for (const http::h1::Header& h : headers) {
        const http::h1::Header** slot = nullptr;
        if (http::h1::iequals(h.name, "Authorization"))
            slot = &authorization;
        else if (!api_key_header.empty() && http::h1::iequals(h.name, api_key_header))
            slot = &api_key;
        else
            continue;
        if (*slot != nullptr) return {CredentialKind::kMalformed, {}};
        *slot = &h;
    }
    if (authorization != nullptr && api_key != nullptr) return {CredentialKind::kMalformed, {}};
    if (authorization != nullptr) {
        const std::string_view token = bearer_token(authorization->value);
        if (token.empty()) return {CredentialKind::kMalformed, {}};
        return {CredentialKind::kBearerToken, token};
    }
    if (api_key != nullptr) {
        if (api_key->value.empty() || !is_visible_ascii(api_key->value)) return {CredentialKind::kMalformed, {}};
        return {CredentialKind::kApiKey, api_key->value};
    }
    return {};
}

bool looks_like_jwt(std::string_view token) {
    std::size_t dots = 0;
    for (char c : token)
        dots += c == '.';
    return dots == 2;
}

}  // namespace slipstream::policy::auth
