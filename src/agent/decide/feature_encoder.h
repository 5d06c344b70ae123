// Context and action features: a JSON context to hashed features, and the sparse vector the learner scores.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "agent/decide/capsule_spec.h"
#include "json/value.h"

namespace slipstream::agent::decide {

/// One feature before it is folded into the learner's dimension.
struct HashedFeature {
    std::uint64_t hash;
    double value;
};

/// (index, value) pairs; an index may repeat (hash collisions add up).
using SparseVector = std::vector<std::pair<std::uint32_t, double>>;

/// The value at a dotted path ("user.tier") inside `root`, or nullptr.
const json::Value* resolve_path(const json::Value& root, std::string_view dotted);

/// The context's features as the spec declares them. A declared feature that is absent adds nothing; one of the
/// wrong type is an error naming it (in `error`, with the return value empty), as is a context that yields more
/// than limits.max_context_features features.
std::vector<HashedFeature> encode_context(const CapsuleSpec& spec, const json::Value& context, const SpecLimits& limits,
                                          std::string* error);

/// The vector the learner sees for `action`: the bias (index 0) and the context features; for a shared learner
/// also the action's indicator, its features and their crosses with the context.
SparseVector action_vector(const CapsuleSpec& spec, const std::vector<HashedFeature>& context, std::size_t action);

/// Whether every eligibility condition of the action holds for the context.
bool is_eligible(const ActionSpec& action, const json::Value& context);

}  // namespace slipstream::agent::decide
