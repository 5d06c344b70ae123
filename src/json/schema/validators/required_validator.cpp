// required: every listed member present (pydantic "missing" / "Field required", loc = the key).
#include <unordered_map>
#include <vector>

#include "json/schema/validators/common.h"

namespace slipstream::json::schema::validators {
namespace {

// Up to this many (names x members) comparisons a linear scan beats hashing.
constexpr std::size_t kLinearLimit = 256;

class RequiredValidator final : public Validator {
  public:
    RequiredValidator(std::string location, std::vector<std::string_view> names)
        : Validator(std::move(location), kObjectType), names_(std::move(names)) {
        if (names_.size() > 8)
            for (std::uint32_t i = 0; i < names_.size(); ++i)
                index_.emplace(names_[i], i);
    }

    bool validate(const Value& v, Context& ctx, Annotations*) const override {
        if (index_.empty() || names_.size() * v.size() <= kLinearLimit) {
            bool ok = true;
            std::uint32_t next = 0;
            for (std::string_view name : names_) {
                if (present(v, name, next)) continue;
                ok = false;
                if (!missing(name, v, ctx)) return false;
            }
            return ok;
        }
        // One pass over the members marks which names are present.
        Annotations found(static_cast<std::uint32_t>(names_.size()));
        std::uint32_t hits = 0;
        for (const json::Member& m : v.members()) {
            auto it = index_.find(m.key);
            if (it != index_.end() && !found.test(it->second)) {
                found.set(it->second);
                ++hits;
            }
        }
        if (hits == names_.size()) return true;
        for (std::uint32_t i = 0; i < names_.size(); ++i)
            if (!found.test(i) && !missing(names_[i], v, ctx)) return false;
        return false;
    }

  private:
    // Required names usually come in member order (pydantic lists them in field order), so each search
    // starts after the previous hit: one comparison per name when the orders agree.
    static bool present(const Value& v, std::string_view name, std::uint32_t& next) {
        auto members = v.members();
        const auto n = static_cast<std::uint32_t>(members.size());
        for (std::uint32_t k = 0, i = next; k < n; ++k, ++i) {
            if (i >= n) i = 0;
            if (same_key(members[i].key, name)) {
                next = i + 1;
                return true;
            }
        }
        return false;
    }

    // Reports one missing name; returns false when validation should stop.
    bool missing(std::string_view name, const Value& object, Context& ctx) const {
        PathSegment key{name, -1};
        ctx.report(location_, "missing", "Field required", object, Value(), &key);
        return !ctx.stop();
    }

    std::vector<std::string_view> names_;  // views into the SchemaData arena
    std::unordered_map<std::string_view, std::uint32_t> index_;
};

}  // namespace

std::vector<std::string_view> name_list(const KeywordInput& in, const Value& list, const std::string& location) {
    if (!list.is_array()) throw SchemaError(location, "must be an array of strings");
    std::vector<std::string_view> names;
    for (const Value& name : list.items()) {
        if (!name.is_string()) throw SchemaError(location, "must be an array of strings");
        names.push_back(name.as_string());
    }
    return names;
}

void make_required(const KeywordInput& in) {
    auto names = name_list(in, *in.get("required"), in.location("required"));
    if (!names.empty()) in.add(std::make_unique<RequiredValidator>(in.location("required"), std::move(names)));
}

}  // namespace slipstream::json::schema::validators
