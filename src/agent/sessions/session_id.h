// Session ids: 128 random bits from the CSPRNG, written as 22 base64url characters.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace slipstream::agent::sessions {

inline constexpr std::size_t kSessionIdLength = 22;

/// A fresh unguessable id (OpenSSL RAND_bytes, 16 bytes, base64url without padding). kInternal when the CSPRNG
/// fails (it never returns a weaker id).
base::Result<std::string> new_session_id();

/// Whether `text` has the shape of an id (22 base64url characters): anything else is answered as unknown
/// without asking the database.
bool is_session_id(std::string_view text);

}  // namespace slipstream::agent::sessions
