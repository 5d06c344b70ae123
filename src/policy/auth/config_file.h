// read_config_file: the whole text of a key file, or an AuthConfigError naming the path.
#pragma once

#include <string>

namespace slipstream::policy::auth::detail {

/// Reads `path` whole. Throws AuthConfigError(path, "cannot read: <strerror>") when it cannot.
std::string read_config_file(const std::string& path);

}  // namespace slipstream::policy::auth::detail
