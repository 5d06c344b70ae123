// Method parsing, naming and Allow header formatting.
#include "router/method.h"

#include <cstring>

namespace slipstream::server {
namespace {

constexpr std::array<std::string_view, kMethodCount + 1> kNames = {
    "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "OTHER",
};

}  // namespace

Method parse_method(std::string_view token) {
    // Dispatch on length first: one comparison per candidate at most.
    switch (token.size()) {
        case 3:
            if (token == "GET") return Method::kGet;
            if (token == "PUT") return Method::kPut;
            break;
        case 4:
            if (token == "POST") return Method::kPost;
            if (token == "HEAD") return Method::kHead;
            break;
        case 5:
            if (token == "PATCH") return Method::kPatch;
            if (token == "TRACE") return Method::kTrace;
            break;
        case 6:
            if (token == "DELETE") return Method::kDelete;
            break;
        case 7:
            if (token == "OPTIONS") return Method::kOptions;
            if (token == "CONNECT") return Method::kConnect;
            break;
        default:
            break;
    }
    return Method::kOther;
}

std::string_view method_name(Method method) {
    auto index = static_cast<std::size_t>(method);
    return index < kNames.size() ? kNames[index] : kNames[kMethodCount];
}

std::string_view format_allow(MethodSet set, std::array<char, kAllowBufferSize>& buf) {
    std::size_t len = 0;
    for (std::size_t i = 0; i < kMethodCount; ++i) {
        auto m = static_cast<Method>(i);
        if (!set.contains(m)) continue;
        if (len != 0) {
            buf[len++] = ',';
            buf[len++] = ' ';
        }
        std::memcpy(buf.data() + len, kNames[i].data(), kNames[i].size());
        len += kNames[i].size();
    }
    return {buf.data(), len};
}

}  // namespace slipstream::server
