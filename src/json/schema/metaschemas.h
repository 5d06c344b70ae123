// Built-in metaschema documents (2020-12 with its vocabularies, draft-07), looked up by URI.
#pragma once

#include <optional>
#include <string_view>

namespace slipstream::json::schema::detail {

/// The JSON text of a published metaschema, by its URI (a trailing '#' is ignored), or nullopt.
std::optional<std::string_view> builtin_metaschema(std::string_view uri);

}  // namespace slipstream::json::schema::detail
