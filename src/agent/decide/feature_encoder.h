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

/// Features a request gives its actions, by action id, instead of the spec's (flattened with dotted names).
using ActionFeatures = std::vector<std::pair<std::string, std::vector<std::pair<std::string, double>>>>;

/// The request's own actions: the entries of `given` whose id the spec lacks, in their order. Decisions number
/// them after the spec's actions: index spec.actions.size() + k is the k-th (shared learner only).
std::vector<const std::pair<std::string, std::vector<std::pair<std::string, double>>>*> request_actions(
    const CapsuleSpec& spec, const ActionFeatures* given);
/// The id of action `index` (the spec's, or a request's own as above); empty when there is none.
std::string action_id(const CapsuleSpec& spec, const ActionFeatures* given, std::size_t index);
/// The index of action `id` (the spec's, or a request's own); -1 when there is none.
int action_index(const CapsuleSpec& spec, const ActionFeatures* given, std::string_view id);

/// The vector the learner sees for `action`: the bias (index 0) and the context features; for a shared learner
/// also the action's indicator, its features (the request's for that action when `given` lists it, else the
/// spec's) and their crosses with the context. `action` may be a request's own (see request_actions()); one that
/// names nothing gives the bias and context alone.
SparseVector action_vector(const CapsuleSpec& spec, const std::vector<HashedFeature>& context, std::size_t action,
                           const ActionFeatures* given = nullptr);

/// A request's `{"<id>": {features}, ...}` as logged (compact JSON; empty text: none), read back: numbers only,
/// nested objects flattened with dots, at most limits.max_action_features per action. False with `error` set on
/// anything else.
bool parse_action_features(std::string_view json_text, const SpecLimits& limits, ActionFeatures& out,
                           std::string* error);
/// One action's features object (`{"cost": 2, "latency": {"p50": 1}}`) flattened; false with `error` naming the
/// member (a JSON pointer below the object) on a non-number, a depth past 8 or too many features.
bool flatten_action_features(const json::Value& object, const SpecLimits& limits,
                             std::vector<std::pair<std::string, double>>& out, std::string* error);

/// Whether every eligibility condition of the action holds for the context.
bool is_eligible(const ActionSpec& action, const json::Value& context);

}  // namespace slipstream::agent::decide
