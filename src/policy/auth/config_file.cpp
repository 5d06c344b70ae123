// read_config_file: stdio read of a small control-plane file.
#include "policy/auth/config_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "policy/auth/auth_config_error.h"

namespace slipstream::policy::auth::detail {

std::string read_config_file(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) throw AuthConfigError(path, std::string("cannot read: ") + std::strerror(errno));
    std::string text;
    char buf[16384];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
        text.append(buf, n);
    const int err = std::ferror(f) != 0 ? errno : 0;
    std::fclose(f);
    if (err != 0) throw AuthConfigError(path, std::string("cannot read: ") + std::strerror(err));
    return text;
}

}  // namespace slipstream::policy::auth::detail
