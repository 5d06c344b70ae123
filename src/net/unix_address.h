// Module-private: building a sockaddr_un from a path ("@name" for the abstract namespace).
#pragma once

#include <sys/socket.h>
#include <sys/un.h>

#include <string_view>

#include "base/status.h"

namespace slipstream::net::detail {

/// Fills `out`/`len` for `path`. Error: kInvalidArgument when the path is empty or too long.
base::Status make_unix_address(std::string_view path, sockaddr_un& out, socklen_t& len);

}  // namespace slipstream::net::detail
