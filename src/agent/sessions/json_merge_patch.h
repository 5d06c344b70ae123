// JSON Merge Patch (RFC 7396) over JSON texts: how PATCH /sessions/{id}/state changes a state document.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace slipstream::agent::sessions {

/// `target` with `patch` applied, as compact JSON: an object patch sets its members recursively and removes those
/// it sets to null; any other patch replaces the target. kInvalidArgument (naming which) when either text is not
/// JSON; kOutOfRange for a document nested deeper than 64. Thread-safe.
base::Result<std::string> apply_merge_patch(std::string_view target, std::string_view patch);

/// `text` parsed and written back compactly; kInvalidArgument when it is not one JSON document.
base::Result<std::string> compact_json(std::string_view text);

}  // namespace slipstream::agent::sessions
