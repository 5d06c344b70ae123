// parse_capsule_spec(): one walk over the spec document, checking each member against its rules.
#include "agent/decide/capsule_spec.h"

#include <cmath>
#include <initializer_list>
#include <optional>

#include "base/arena.h"
#include "json/parse.h"
#include "json/pointer.h"
#include "json/value.h"
#include "json/writer.h"

namespace slipstream::agent::decide {

namespace {

constexpr std::size_t kMaxIdBytes = 128;
constexpr std::size_t kMaxPathBytes = 256;
constexpr std::size_t kMaxAllowedValues = 64;
constexpr std::size_t kMaxDepth = 8;

// Thrown inside this file only, caught by parse_capsule_spec: the walk stops at the first error.
struct Stop {
    SpecError error;
};

class Checker {
  public:
    explicit Checker(const SpecLimits& limits) : limits_(limits) {}

    CapsuleSpec spec(const json::Value& root) {
        CapsuleSpec s;
        expect_object(root, {"actions", "features", "reward", "exploration", "learner", "mode"});
        const json::Value* actions = root.find("actions");
        if (actions == nullptr) fail("/actions", "is required");
        push("actions");
        s.actions = parse_actions(*actions);
        pop();
        if (const json::Value* f = root.find("features")) {
            push("features");
            parse_features(*f, s);
            pop();
        }
        if (const json::Value* r = root.find("reward")) {
            push("reward");
            s.reward = parse_reward(*r);
            pop();
        }
        if (const json::Value* e = root.find("exploration")) {
            push("exploration");
            s.exploration = parse_exploration(*e);
            pop();
        }
        if (const json::Value* l = root.find("learner")) {
            push("learner");
            s.learner = parse_learner(*l);
            pop();
        }
        s.mode = choice(root, "mode", Mode::kLearner,
                        {{"learner", Mode::kLearner},
                         {"baselineExplore", Mode::kBaselineExplore},
                         {"frozen", Mode::kFrozen},
                         {"shadow", Mode::kFrozen}},
                        "must be one of learner, baselineExplore, frozen");
        s.model_key = model_key(root);
        return s;
    }

  private:
    [[noreturn]] void fail(std::string pointer, std::string message) {
        throw Stop{{std::move(pointer), std::move(message)}};
    }
    [[noreturn]] void fail_here(std::string message) { fail(path_.to_string(), std::move(message)); }
    void push(std::string_view key) { path_.push_key(key); }
    void push(std::size_t i) { path_.push_index(i); }
    void pop() { path_.pop(); }

    void expect_object(const json::Value& v, std::initializer_list<std::string_view> known) {
        if (!v.is_object()) fail_here("must be an object");
        for (const json::Member& m : v.members()) {
            bool ok = false;
            for (std::string_view k : known)
                ok = ok || k == m.key;
            if (!ok) {
                push(m.key);
                fail_here("is not a known member");
            }
        }
    }
    std::string_view string_of(const json::Value& v) {
        if (!v.is_string()) fail_here("must be a string");
        return v.as_string();
    }
    std::string name_of(const json::Value& v, std::size_t max) {
        std::string_view s = string_of(v);
        if (s.empty() || s.size() > max) fail_here("must be 1 to " + std::to_string(max) + " bytes");
        return std::string(s);
    }
    // A number in [lo, hi] (open at an end when the flag says so).
    double number(const json::Value& obj, std::string_view key, double fallback, double lo, double hi,
                  bool lo_open = false) {
        const json::Value* v = obj.find(key);
        if (v == nullptr) return fallback;
        push(key);
        if (!v->is_number()) fail_here("must be a number");
        const double d = v->as_double();
        if (!std::isfinite(d) || d < lo || d > hi || (lo_open && d == lo)) {
            fail_here("must be " + std::string(lo_open ? "> " : ">= ") + json_number(lo) +
                      " and <= " + json_number(hi));
        }
        pop();
        return d;
    }
    static std::string json_number(double d) {
        if (d == std::floor(d) && std::fabs(d) < 1e15) return std::to_string(static_cast<std::int64_t>(d));
        std::string out;
        json::Writer w(out);
        if (!w.number(d).is_ok()) return "?";
        return out;
    }

    // The member `key` of `obj` as one of the named options (absent: `fallback`).
    template <typename E>
    E choice(const json::Value& obj, std::string_view key, E fallback,
             std::initializer_list<std::pair<std::string_view, E>> options, const char* message) {
        const json::Value* v = obj.find(key);
        if (v == nullptr) return fallback;
        push(key);
        std::string_view name = string_of(*v);
        for (const auto& [option, value] : options) {
            if (option == name) {
                pop();
                return value;
            }
        }
        fail_here(message);
    }

    std::vector<ActionSpec> parse_actions(const json::Value& v) {
        if (!v.is_array() || v.size() == 0) fail_here("must be a non-empty array");
        if (v.size() > limits_.max_actions)
            fail_here("has more than " + std::to_string(limits_.max_actions) + " actions (the limit)");
        std::vector<ActionSpec> out;
        for (std::size_t i = 0; i < v.size(); ++i) {
            push(i);
            const json::Value& a = v.items()[i];
            expect_object(a, {"id", "features", "eligible"});
            ActionSpec action;
            const json::Value* id = a.find("id");
            if (id == nullptr) fail(path_.to_string() + "/id", "is required");
            push("id");
            action.id = name_of(*id, kMaxIdBytes);
            for (const ActionSpec& seen : out)
                if (seen.id == action.id) fail_here("repeats the action id \"" + action.id + "\"");
            pop();
            if (const json::Value* f = a.find("features")) {
                push("features");
                if (!f->is_object()) fail_here("must be an object");
                flatten_numbers(*f, "", action.features, 0);
                pop();
            }
            if (const json::Value* e = a.find("eligible")) {
                push("eligible");
                action.eligible = parse_eligibility(*e);
                pop();
            }
            out.push_back(std::move(action));
            pop();
        }
        return out;
    }

    void flatten_numbers(const json::Value& v, const std::string& prefix,
                         std::vector<std::pair<std::string, double>>& out, std::size_t depth) {
        if (depth > kMaxDepth) fail_here("nests deeper than " + std::to_string(kMaxDepth));
        for (const json::Member& m : v.members()) {
            push(m.key);
            std::string name = prefix.empty() ? std::string(m.key) : prefix + "." + std::string(m.key);
            if (m.value.is_object()) {
                flatten_numbers(m.value, name, out, depth + 1);
            } else if (m.value.is_number() && std::isfinite(m.value.as_double())) {
                if (out.size() == limits_.max_action_features)
                    fail_here("is past the limit of " + std::to_string(limits_.max_action_features) +
                              " features per action");
                out.emplace_back(std::move(name), m.value.as_double());
            } else {
                fail_here("must be a number or an object of numbers");
            }
            pop();
        }
    }

    std::vector<Eligibility> parse_eligibility(const json::Value& v) {
        if (!v.is_object()) fail_here("must be an object of context paths to allowed values");
        std::vector<Eligibility> out;
        for (const json::Member& m : v.members()) {
            push(m.key);
            if (m.key.empty() || m.key.size() > kMaxPathBytes) fail_here("must name a context path");
            Eligibility e;
            e.path = std::string(m.key);
            auto scalar = [this](const json::Value& x) {
                if (x.is_array() || x.is_object()) fail_here("allowed values must be strings, numbers or booleans");
                std::string text;
                json::Writer w(text);
                if (!w.write_value(x).is_ok()) fail_here("must be finite");
                return text;
            };
            if (m.value.is_array()) {
                if (m.value.size() == 0 || m.value.size() > kMaxAllowedValues)
                    fail_here("must list 1 to " + std::to_string(kMaxAllowedValues) + " values");
                for (std::size_t i = 0; i < m.value.size(); ++i) {
                    push(i);
                    e.allowed.push_back(scalar(m.value.items()[i]));
                    pop();
                }
            } else {
                e.allowed.push_back(scalar(m.value));
            }
            out.push_back(std::move(e));
            pop();
        }
        return out;
    }

    void parse_features(const json::Value& v, CapsuleSpec& s) {
        expect_object(v, {"dimension", "context"});
        if (const json::Value* d = v.find("dimension")) {
            push("dimension");
            if (d->type() != json::Type::kInt || d->as_int() < 2 ||
                static_cast<std::uint64_t>(d->as_int()) > limits_.max_feature_dim)
                fail_here("must be an integer from 2 to " + std::to_string(limits_.max_feature_dim));
            s.dimension = static_cast<std::size_t>(d->as_int());
            pop();
        }
        const json::Value* c = v.find("context");
        if (c == nullptr) return;
        push("context");
        if (!c->is_array()) fail_here("must be an array");
        if (c->size() > limits_.max_features)
            fail_here("declares more than " + std::to_string(limits_.max_features) + " features (the limit)");
        for (std::size_t i = 0; i < c->size(); ++i) {
            push(i);
            const json::Value& f = c->items()[i];
            expect_object(f, {"name", "type", "scale"});
            FeatureSpec feature;
            const json::Value* name = f.find("name");
            if (name == nullptr) fail(path_.to_string() + "/name", "is required");
            push("name");
            feature.path = name_of(*name, kMaxPathBytes);
            pop();
            feature.kind = choice(f, "type", FeatureKind::kNumeric,
                                  {{"numeric", FeatureKind::kNumeric},
                                   {"categorical", FeatureKind::kCategorical},
                                   {"hashed", FeatureKind::kHashed},
                                   {"object", FeatureKind::kObject}},
                                  "must be one of numeric, categorical, hashed, object");
            feature.scale = number(f, "scale", 1.0, -1e12, 1e12);
            s.features.push_back(std::move(feature));
            pop();
        }
        pop();
    }

    RewardSpec parse_reward(const json::Value& v) {
        expect_object(v, {"range", "default", "waitSeconds", "aggregation", "components"});
        RewardSpec r;
        if (const json::Value* range = v.find("range")) {
            push("range");
            if (!range->is_array() || range->size() != 2 || !range->items()[0].is_number() ||
                !range->items()[1].is_number())
                fail_here("must be [min, max]");
            r.min = range->items()[0].as_double();
            r.max = range->items()[1].as_double();
            if (!std::isfinite(r.min) || !std::isfinite(r.max) || r.min >= r.max) fail_here("must have min < max");
            pop();
        }
        r.default_reward = number(v, "default", r.min, r.min, r.max);
        r.wait_seconds = number(v, "waitSeconds", r.wait_seconds, 0.0, 30.0 * 86400.0, true);
        r.aggregation = choice(v, "aggregation", Aggregation::kFirst,
                               {{"first", Aggregation::kFirst}, {"sum", Aggregation::kSum}}, "must be first or sum");
        if (const json::Value* c = v.find("components")) {
            push("components");
            if (!c->is_object()) fail_here("must be an object of component names to weights");
            if (c->size() > limits_.max_components)
                fail_here("has more than " + std::to_string(limits_.max_components) + " components (the limit)");
            for (const json::Member& m : c->members()) {
                if (m.key.empty() || m.key.size() > kMaxIdBytes) {
                    push(m.key);
                    fail_here("must be a name of 1 to " + std::to_string(kMaxIdBytes) + " bytes");
                }
                r.components.emplace_back(std::string(m.key), number(*c, m.key, 0.0, -1e12, 1e12));
            }
            pop();
        }
        return r;
    }

    ExplorationSpec parse_exploration(const json::Value& v) {
        expect_object(v, {"type", "gamma", "gammaExponent", "floor", "epsilon"});
        ExplorationSpec e;
        e.kind = choice(v, "type", ExplorationKind::kSquareCb,
                        {{"squarecb", ExplorationKind::kSquareCb}, {"epsilonGreedy", ExplorationKind::kEpsilonGreedy}},
                        "must be squarecb or epsilonGreedy");
        e.gamma = number(v, "gamma", e.gamma, 0.0, 1e9, true);
        e.gamma_exponent = number(v, "gammaExponent", e.gamma_exponent, 0.0, 1.0);
        e.floor = number(v, "floor", e.floor, 0.0, 1.0);
        e.epsilon = number(v, "epsilon", e.epsilon, 0.0, 1.0);
        return e;
    }

    LearnerSpec parse_learner(const json::Value& v) {
        expect_object(v, {"type", "regularization", "learningRate", "forgetting"});
        LearnerSpec l;
        l.kind = choice(v, "type", LearnerKind::kPerAction,
                        {{"perAction", LearnerKind::kPerAction}, {"shared", LearnerKind::kShared}},
                        "must be perAction or shared");
        l.regularization = number(v, "regularization", l.regularization, 0.0, 1e9, true);
        l.learning_rate = number(v, "learningRate", l.learning_rate, 0.0, 1e6, true);
        l.forgetting = number(v, "forgetting", l.forgetting, 0.0, 1.0, true);
        return l;
    }

    // The members the model depends on, written compactly in a fixed order.
    static std::string model_key(const json::Value& root) {
        std::string out;
        json::Writer w(out);
        w.begin_array();
        for (std::string_view k : {"actions", "features", "learner"}) {
            const json::Value* v = root.find(k);
            if (v == nullptr) {
                w.null();
            } else if (!w.write_value(*v).is_ok()) {
                w.null();
            }
        }
        w.end_array();
        return out;
    }

    const SpecLimits& limits_;
    json::Pointer path_;
};

}  // namespace

int CapsuleSpec::action_index(std::string_view id) const {
    for (std::size_t i = 0; i < actions.size(); ++i)
        if (actions[i].id == id) return static_cast<int>(i);
    return -1;
}

std::size_t model_bytes(const CapsuleSpec& spec) {
    const std::size_t arms = spec.learner.kind == LearnerKind::kShared ? 1 : spec.actions.size();
    return arms * 2 * spec.dimension * spec.dimension * sizeof(double);
}

std::string_view mode_name(Mode mode) {
    switch (mode) {
        case Mode::kLearner:
            return "learner";
        case Mode::kBaselineExplore:
            return "baselineExplore";
        case Mode::kFrozen:
            return "frozen";
    }
    return "learner";
}

SpecResult parse_capsule_spec(std::string_view text, const SpecLimits& limits) {
    if (text.size() > limits.max_spec_bytes)
        return SpecError{"", "the spec is larger than " + std::to_string(limits.max_spec_bytes) + " bytes (the limit)"};
    base::Arena arena;
    json::ParseError perr;
    json::ParseOptions options;
    options.max_depth = 16;
    base::Result<const json::Value*> root = json::parse(text, arena, options, &perr);
    if (!root.is_ok()) return SpecError{"", "not JSON: " + perr.message};
    try {
        CapsuleSpec spec = Checker(limits).spec(*root.value());
        const ExplorationSpec& e = spec.exploration;
        if (e.floor * static_cast<double>(spec.actions.size()) > 1.0)
            return SpecError{"/exploration/floor", "times the number of actions must be at most 1"};
        if (model_bytes(spec) > limits.max_model_bytes)
            return SpecError{"/features/dimension", "gives a model of " + std::to_string(model_bytes(spec)) +
                                                        " bytes with these actions; the limit is " +
                                                        std::to_string(limits.max_model_bytes)};
        return spec;
    } catch (const Stop& stop) {
        return stop.error;
    }
}

}  // namespace slipstream::agent::decide
