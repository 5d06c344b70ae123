// CapsuleSpec: a decision point's definition (actions, context features, reward, exploration, learner, mode),
// parsed from JSON and validated with errors that name the field.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace slipstream::agent::decide {

/// Bounds every spec must stay within (server knobs).
struct SpecLimits {
    std::size_t max_actions = 64;             // actions of one capsule
    std::size_t max_feature_dim = 256;        // features.dimension (a ridge model holds dimension^2 numbers per action)
    std::size_t max_features = 128;           // declared context features
    std::size_t max_action_features = 32;     // numeric features of one action (after flattening)
    std::size_t max_components = 16;          // reward components
    std::size_t max_context_features = 4096;  // features one context yields (after flattening and hashing)
    std::size_t max_spec_bytes = 64 * 1024;
    /// Memory of one capsule's model: two dimension x dimension matrices of doubles per arm (one arm per action,
    /// or one shared).
    std::size_t max_model_bytes = 32 * 1024 * 1024;
};

enum class Mode : std::uint8_t { kLearner, kBaselineExplore, kFrozen };
enum class ExplorationKind : std::uint8_t { kSquareCb, kEpsilonGreedy };
enum class LearnerKind : std::uint8_t { kPerAction, kShared };
enum class Aggregation : std::uint8_t { kFirst, kSum };
/// numeric: a number; categorical: one-hot of the value by hashing; hashed: an array of tokens or an object of
/// numbers, each hashed; object: a nested object flattened with dotted names (numbers as values, the rest one-hot).
enum class FeatureKind : std::uint8_t { kNumeric, kCategorical, kHashed, kObject };

/// A condition on the context: the value at the dotted `path` (written as compact JSON) must be one of `allowed`.
struct Eligibility {
    std::string path;
    std::vector<std::string> allowed;
};

struct ActionSpec {
    std::string id;
    std::vector<std::pair<std::string, double>> features;  // flattened with dotted names
    std::vector<Eligibility> eligible;                     // all must hold
};

struct FeatureSpec {
    std::string path;  // dotted path into the context
    FeatureKind kind = FeatureKind::kNumeric;
    double scale = 1.0;  // multiplies numeric values
};

struct RewardSpec {
    double min = 0.0;
    double max = 1.0;
    double default_reward = 0.0;  // applied when no reward came within wait_seconds
    double wait_seconds = 3600.0;
    Aggregation aggregation = Aggregation::kFirst;
    std::vector<std::pair<std::string, double>> components;  // name -> weight; empty: a reward is one number
};

struct ExplorationSpec {
    ExplorationKind kind = ExplorationKind::kSquareCb;
    double gamma = 100.0;         // SquareCB: larger exploits more
    double gamma_exponent = 0.0;  // SquareCB's gamma grows as gamma * max(1, learned updates)^gammaExponent
    double floor = 0.0;           // every eligible action gets at least this probability
    double epsilon = 0.05;        // epsilon-greedy, and the exploration of baselineExplore
};

struct LearnerSpec {
    LearnerKind kind = LearnerKind::kPerAction;
    double regularization = 1.0;  // ridge lambda (> 0)
    double learning_rate = 1.0;   // weight of each update
    double forgetting = 1.0;      // in (0, 1]: older data is discounted by this per update
};

struct CapsuleSpec {
    std::vector<ActionSpec> actions;
    std::vector<FeatureSpec> features;
    std::size_t dimension = 64;  // hashed feature space of the learner
    RewardSpec reward;
    ExplorationSpec exploration;
    LearnerSpec learner;
    Mode mode = Mode::kLearner;
    /// Compact JSON of what the learned model depends on (actions, features, learner): a spec change that alters
    /// it starts a new model generation.
    std::string model_key;

    /// The index of the action `id`, or -1.
    int action_index(std::string_view id) const;
};

/// The bytes of the matrices a model of `spec` holds.
std::size_t model_bytes(const CapsuleSpec& spec);

/// Where a spec is wrong: a JSON pointer into the spec ("/exploration/gamma") and why.
struct SpecError {
    std::string pointer;
    std::string message;
};

/// The parsed spec, or the first error found (fields are checked in document order).
using SpecResult = std::variant<CapsuleSpec, SpecError>;

/// Parses and validates a spec document (JSON text). Unknown members are errors, so a typo never goes unnoticed.
SpecResult parse_capsule_spec(std::string_view json, const SpecLimits& limits);

std::string_view mode_name(Mode mode);

}  // namespace slipstream::agent::decide
