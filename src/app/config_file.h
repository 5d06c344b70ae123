// Config files: `key = value` lines whose keys are the flag names without dashes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "app/assignment.h"
#include "app/registry.h"

namespace slipstream::app {

/// Splits config-file text into assignments, in file order. Format, one setting per line:
///   # a comment (only on a line of its own)
///   max-body-bytes = 2m
///   server-header = "my server"     (quotes keep spaces; "" is an empty string)
/// Throws ConfigError "<label>:<line>: <reason>" for a line without '=', a missing value, an
/// unknown or duplicate key, a key that a file cannot set, or a bad quoted value. Values are
/// checked when the assignments are applied (Registry::set), with the same file:line prefix.
std::vector<Assignment> parse_config_text(std::string_view text, std::string_view label, const Registry& registry);

/// Reads and parses a file; throws ConfigError "cannot read config file '<path>': <reason>".
std::vector<Assignment> read_config_file(const std::string& path, const Registry& registry);

}  // namespace slipstream::app
