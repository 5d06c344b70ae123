// CapsuleModel: a capsule's learned state (ridge arms) and its decisions: eligible actions, scores, the
// exploration policy and the seeded draw.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "agent/decide/capsule_spec.h"
#include "agent/decide/feature_encoder.h"
#include "agent/decide/ridge_arm.h"
#include "base/result.h"
#include "json/value.h"

namespace slipstream::agent::decide {

struct DecideInput {
    const json::Value* context = nullptr;      // an object (null: an empty context)
    std::vector<std::string> only;             // restrict to these action ids (empty: every action)
    std::vector<std::string> excluded;         // never these
    std::optional<std::string> baseline;       // the caller's own choice (baselineExplore needs it)
    std::uint64_t seed = 0;                    // drives the draw: the same seed and model give the same decision
    const ActionFeatures* features = nullptr;  // the request's own action features (shared learner only)
};

struct RankedAction {
    std::size_t index = 0;  // in the spec's action list
    std::string id;
    double score = 0.0;
    double probability = 0.0;
};

struct DecisionOutcome {
    std::size_t action_index = 0;
    std::string action;
    double probability = 0.0;           // the propensity the draw used
    std::vector<RankedAction> ranking;  // every eligible action, most probable first
    Mode mode = Mode::kLearner;
    std::uint64_t seed = 0;
    std::int64_t model_version = 0;
    std::int64_t generation = 0;
};

/// Input a decision cannot be made from: a pointer into the request body and why.
struct DecideFailure {
    std::string pointer;
    std::string message;
};

/// Not thread-safe: the capsule's lock guards it.
class CapsuleModel {
  public:
    /// A fresh model (every arm at its prior) for `spec`, in `generation` (the spec version it began with).
    CapsuleModel(std::shared_ptr<const CapsuleSpec> spec, SpecLimits limits, std::int64_t generation);

    std::variant<DecisionOutcome, DecideFailure> decide(const DecideInput& input) const;
    /// One reward for `action` taken in `context`; `version` is the update's sequence number (the model's
    /// version afterwards). kInvalidArgument for a context that no longer encodes (the spec changed).
    /// `features`: the action features the decision's request gave (null: the spec's).
    base::Status learn(const json::Value& context, std::size_t action, double reward, std::int64_t version,
                       const ActionFeatures* features = nullptr);

    /// The arms as text (see RidgeArm::save), with the generation and version.
    std::string snapshot() const;
    /// Replaces the arms with a snapshot of the same spec's model. kInvalidArgument when malformed or of
    /// another shape.
    base::Status restore(std::string_view snapshot);

    /// Swaps in a new version of the spec with the same model_key (mode, exploration, reward changed).
    void set_spec(std::shared_ptr<const CapsuleSpec> spec) { spec_ = std::move(spec); }

    const CapsuleSpec& spec() const { return *spec_; }
    std::shared_ptr<const CapsuleSpec> spec_ptr() const { return spec_; }
    std::int64_t generation() const { return generation_; }
    std::int64_t version() const { return version_; }
    /// Updates each action's arm took (for the shared learner, every entry is the shared arm's count).
    std::vector<std::uint64_t> updates_per_action() const;
    const SpecLimits& limits() const { return limits_; }

  private:
    RidgeArm& arm_for(std::size_t action);
    const RidgeArm& arm_for(std::size_t action) const;

    std::shared_ptr<const CapsuleSpec> spec_;
    SpecLimits limits_;
    std::int64_t generation_;
    std::int64_t version_ = 0;
    std::vector<RidgeArm> arms_;  // one per action, or one shared
};

}  // namespace slipstream::agent::decide
