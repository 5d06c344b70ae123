// encode_context(), action_vector(): declared features to hashes, hashes to indices of the spec's dimension.
#include "agent/decide/feature_encoder.h"

#include <cmath>

#include "agent/decide/feature_hash.h"
#include "base/arena.h"
#include "json/parse.h"
#include "json/writer.h"

namespace slipstream::agent::decide {

namespace {

constexpr std::size_t kMaxFlattenDepth = 8;

std::string scalar_text(const json::Value& v) {
    if (v.is_string()) return std::string(v.as_string());
    std::string out;
    json::Writer w(out);
    if (!w.write_value(v).is_ok()) return "null";
    return out;
}

class Encoder {
  public:
    Encoder(const SpecLimits& limits, std::string* error) : limits_(limits), error_(error) {}

    bool add(std::uint64_t hash, double value) {
        if (out_.size() >= limits_.max_context_features) {
            *error_ = "the context yields more than " + std::to_string(limits_.max_context_features) +
                      " features (the limit)";
            return false;
        }
        out_.push_back({hash, value});
        return true;
    }

    bool feature(const FeatureSpec& f, const json::Value& v) {
        switch (f.kind) {
            case FeatureKind::kNumeric:
                if (!v.is_number() || !std::isfinite(v.as_double())) return wrong(f, "a number");
                return add(feature_hash(f.path), v.as_double() * f.scale);
            case FeatureKind::kCategorical:
                if (v.is_array() || v.is_object()) return wrong(f, "a string, number or boolean");
                return add(feature_hash(f.path, '=', scalar_text(v)), 1.0);
            case FeatureKind::kHashed:
                return hashed(f, v);
            case FeatureKind::kObject:
                if (!v.is_object()) return wrong(f, "an object");
                return flatten(f.path, v, f.scale, 0);
        }
        return true;
    }

    std::vector<HashedFeature> take() { return std::move(out_); }

  private:
    bool wrong(const FeatureSpec& f, std::string_view what) {
        *error_ = "context feature \"" + f.path + "\" must be " + std::string(what);
        return false;
    }

    bool hashed(const FeatureSpec& f, const json::Value& v) {
        if (v.is_array()) {
            for (const json::Value& token : v.items()) {
                if (token.is_array() || token.is_object()) return wrong(f, "an array of strings or an object");
                if (!add(feature_hash(f.path, '=', scalar_text(token)), 1.0)) return false;
            }
            return true;
        }
        if (v.is_object()) {
            for (const json::Member& m : v.members()) {
                if (!m.value.is_number() || !std::isfinite(m.value.as_double()))
                    return wrong(f, "an object of numbers");
                if (!add(feature_hash(f.path, '.', m.key), m.value.as_double() * f.scale)) return false;
            }
            return true;
        }
        if (v.is_string()) return add(feature_hash(f.path, '=', v.as_string()), 1.0);
        return wrong(f, "an array of strings, a string or an object of numbers");
    }

    // Numbers become numeric features named by their dotted path; strings and booleans one-hot; arrays tokens.
    bool flatten(const std::string& prefix, const json::Value& v, double scale, std::size_t depth) {
        if (depth > kMaxFlattenDepth) return true;
        for (const json::Member& m : v.members()) {
            std::string name = prefix + "." + std::string(m.key);
            const json::Value& x = m.value;
            bool ok = true;
            if (x.is_object()) {
                ok = flatten(name, x, scale, depth + 1);
            } else if (x.is_number()) {
                if (std::isfinite(x.as_double())) ok = add(feature_hash(name), x.as_double() * scale);
            } else if (x.is_array()) {
                for (const json::Value& token : x.items())
                    if (ok && !token.is_array() && !token.is_object())
                        ok = add(feature_hash(name, '=', scalar_text(token)), 1.0);
            } else if (!x.is_null()) {
                ok = add(feature_hash(name, '=', scalar_text(x)), 1.0);
            }
            if (!ok) return false;
        }
        return true;
    }

    const SpecLimits& limits_;
    std::string* error_;
    std::vector<HashedFeature> out_;
};

}  // namespace

const json::Value* resolve_path(const json::Value& root, std::string_view dotted) {
    const json::Value* at = &root;
    while (true) {
        if (!at->is_object()) return nullptr;
        const std::size_t dot = dotted.find('.');
        const json::Value* next = at->find(dotted.substr(0, dot));
        if (next == nullptr || dot == std::string_view::npos) return next;
        at = next;
        dotted.remove_prefix(dot + 1);
    }
}

std::vector<HashedFeature> encode_context(const CapsuleSpec& spec, const json::Value& context, const SpecLimits& limits,
                                          std::string* error) {
    Encoder encoder(limits, error);
    for (const FeatureSpec& f : spec.features) {
        const json::Value* v = resolve_path(context, f.path);
        if (v == nullptr || v->is_null()) continue;
        if (!encoder.feature(f, *v)) return {};
    }
    return encoder.take();
}

SparseVector action_vector(const CapsuleSpec& spec, const std::vector<HashedFeature>& context, std::size_t action,
                           const ActionFeatures* given) {
    const std::size_t dim = spec.dimension;
    SparseVector x;
    x.reserve(1 + context.size() * 2);
    x.emplace_back(0, 1.0);
    for (const HashedFeature& f : context)
        x.emplace_back(feature_index(f.hash, dim), f.value);
    if (spec.learner.kind != LearnerKind::kShared) return x;
    // Shared: the action's indicator and features, alone and crossed with each context feature.
    static const std::vector<std::pair<std::string, double>> kNone;
    std::string id;
    const std::vector<std::pair<std::string, double>>* features = &kNone;
    if (action < spec.actions.size()) {
        id = spec.actions[action].id;
        features = &spec.actions[action].features;
    } else {
        const auto own_actions = request_actions(spec, given);
        if (action - spec.actions.size() >= own_actions.size()) return x;
        id = own_actions[action - spec.actions.size()]->first;
    }
    std::vector<HashedFeature> own;
    own.push_back({feature_hash("action", '=', id), 1.0});
    if (given != nullptr)
        for (const auto& [name, f] : *given)
            if (name == id) features = &f;
    for (const auto& [name, value] : *features)
        own.push_back({feature_hash("action", '.', name), value});
    for (const HashedFeature& af : own) {
        x.emplace_back(feature_index(af.hash, dim), af.value);
        for (const HashedFeature& cf : context)
            x.emplace_back(feature_index(cross_hash(cf.hash, af.hash), dim), cf.value * af.value);
    }
    return x;
}

std::vector<const std::pair<std::string, std::vector<std::pair<std::string, double>>>*> request_actions(
    const CapsuleSpec& spec, const ActionFeatures* given) {
    std::vector<const std::pair<std::string, std::vector<std::pair<std::string, double>>>*> out;
    if (given == nullptr) return out;
    for (const auto& entry : *given)
        if (spec.action_index(entry.first) < 0) out.push_back(&entry);
    return out;
}

std::string action_id(const CapsuleSpec& spec, const ActionFeatures* given, std::size_t index) {
    if (index < spec.actions.size()) return spec.actions[index].id;
    const auto own = request_actions(spec, given);
    return index - spec.actions.size() < own.size() ? own[index - spec.actions.size()]->first : std::string();
}

int action_index(const CapsuleSpec& spec, const ActionFeatures* given, std::string_view id) {
    const int index = spec.action_index(id);
    if (index >= 0) return index;
    const auto own = request_actions(spec, given);
    for (std::size_t k = 0; k < own.size(); ++k)
        if (own[k]->first == id) return static_cast<int>(spec.actions.size() + k);
    return -1;
}

namespace {

bool flatten(const json::Value& v, const std::string& prefix, std::size_t depth, const SpecLimits& limits,
             std::vector<std::pair<std::string, double>>& out, std::string* error) {
    if (depth > kMaxFlattenDepth) {
        *error = "/" + prefix + " nests deeper than " + std::to_string(kMaxFlattenDepth);
        return false;
    }
    for (const json::Member& m : v.members()) {
        std::string name = prefix.empty() ? std::string(m.key) : prefix + "." + std::string(m.key);
        if (m.value.is_object()) {
            if (!flatten(m.value, name, depth + 1, limits, out, error)) return false;
        } else if (m.value.is_number() && std::isfinite(m.value.as_double())) {
            if (out.size() == limits.max_action_features) {
                *error = "has more than " + std::to_string(limits.max_action_features) + " features (the limit)";
                return false;
            }
            out.emplace_back(std::move(name), m.value.as_double());
        } else {
            *error = "/" + name + " must be a number or an object of numbers";
            return false;
        }
    }
    return true;
}

}  // namespace

bool flatten_action_features(const json::Value& object, const SpecLimits& limits,
                             std::vector<std::pair<std::string, double>>& out, std::string* error) {
    if (!object.is_object()) {
        *error = "must be an object of numbers";
        return false;
    }
    return flatten(object, "", 0, limits, out, error);
}

bool parse_action_features(std::string_view json_text, const SpecLimits& limits, ActionFeatures& out,
                           std::string* error) {
    out.clear();
    if (json_text.empty()) return true;
    base::Arena arena;
    base::Result<const json::Value*> root = json::parse(json_text, arena);
    if (!root.is_ok() || !root.value()->is_object()) {
        *error = "the logged action features are not a JSON object";
        return false;
    }
    for (const json::Member& m : root.value()->members()) {
        for (const auto& [id, seen] : out)
            if (id == m.key) {
                *error = "gives features to action \"" + id + "\" twice";
                return false;
            }
        std::vector<std::pair<std::string, double>> f;
        if (!flatten_action_features(m.value, limits, f, error)) {
            *error = "/" + std::string(m.key) + "/features" + (error->starts_with("/") ? "" : " ") + *error;
            return false;
        }
        out.emplace_back(std::string(m.key), std::move(f));
    }
    return true;
}

bool is_eligible(const ActionSpec& action, const json::Value& context) {
    for (const Eligibility& e : action.eligible) {
        const json::Value* v = resolve_path(context, e.path);
        if (v == nullptr || v->is_array() || v->is_object()) return false;
        std::string text;
        json::Writer w(text);
        if (!w.write_value(*v).is_ok()) return false;
        bool found = false;
        for (const std::string& allowed : e.allowed)
            found = found || allowed == text;
        if (!found) return false;
    }
    return true;
}

}  // namespace slipstream::agent::decide
