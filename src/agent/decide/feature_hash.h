// Feature hashing: names (and name=value pairs) to 64-bit hashes, and hashes to indices of a fixed dimension.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace slipstream::agent::decide {

/// FNV-1a over the bytes, then a 64-bit finaliser (so that nearby names spread). Stable across builds and
/// platforms: stored models depend on it.
std::uint64_t feature_hash(std::string_view name);
/// The hash of `a` followed by `b` (as if hashing a + sep + b without building the string).
std::uint64_t feature_hash(std::string_view a, char sep, std::string_view b);
/// The hash of a cross feature (a pair of features).
std::uint64_t cross_hash(std::uint64_t a, std::uint64_t b);
/// Index 0 is the bias; hashed features fall in [1, dimension).
std::uint32_t feature_index(std::uint64_t hash, std::size_t dimension);

}  // namespace slipstream::agent::decide
