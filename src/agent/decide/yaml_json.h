// yaml_to_json(): a YAML document (a capsule spec) as compact JSON, through libyaml's event parser.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "base/result.h"

namespace slipstream::agent::decide {

/// Whether this build reads YAML (libyaml was found when it was configured).
bool yaml_supported();

/// One YAML document to JSON. Plain scalars follow the YAML 1.2 core schema (null, ~ and an empty value: null;
/// true/false in any case of those forms; integers, decimal, 0x and 0o; floats with an optional exponent),
/// quoted scalars and `!!str` are strings; mapping keys must be scalars. Refused, with
/// kInvalidArgument "line L, column C: ..." (and `where` set): a syntax error, an alias (no anchors are followed: no
/// expansion bombs), a second document, nesting deeper than `max_depth`, .inf/.nan (not JSON), a non-scalar key.
/// `where`, when given, receives the 1-based line and column of a refusal.
struct YamlMark {
    std::size_t line = 0;
    std::size_t column = 0;
};
base::Result<std::string> yaml_to_json(std::string_view yaml, std::size_t max_depth = 64, YamlMark* where = nullptr);

}  // namespace slipstream::agent::decide
