// OpenSSL error queue -> text.
#include "net/tls/tls_error.h"

#include <openssl/err.h>

namespace slipstream::net::tls {

std::string take_openssl_errors(std::string_view what) {
    std::string out(what);
    bool first = true;
    while (unsigned long code = ERR_get_error()) {
        char buf[256];
        ERR_error_string_n(code, buf, sizeof buf);
        out.append(first ? ": " : "; ");
        out.append(buf);
        first = false;
    }
    return out;
}

}  // namespace slipstream::net::tls
