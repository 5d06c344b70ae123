// prefixItems + items (2020-12) and array-form items + additionalItems (draft-07).
#include <vector>

#include "json/schema/validators/common.h"

namespace slipstream::json::schema::validators {
namespace {

class ItemsValidator final : public Validator {
  public:
    ItemsValidator(std::string rest_location, std::vector<const Node*> prefix, const Node* rest)
        : Validator(std::move(rest_location), kArrayType), prefix_(std::move(prefix)), rest_(rest) {}

    bool validate(const Value& v, Context& ctx, Annotations* ann) const override {
        auto items = v.items();
        const std::uint32_t n = v.size();
        const std::uint32_t np = n < prefix_.size() ? n : static_cast<std::uint32_t>(prefix_.size());
        bool ok = true;
        for (std::uint32_t i = 0; i < np; ++i) {
            PathGuard guard(ctx, i);
            if (!validate_child(prefix_[i], items[i], ctx)) {
                ok = false;
                if (ctx.stop()) return false;
            }
        }
        if (ann) ann->set_prefix(np);
        if (rest_ == nullptr || n == np) return ok;
        if (rest_->is_false()) {  // a closed tuple / list: one error, as pydantic reports it
            if (auto* sink = ctx.sink()) {
                std::string type = prefix_.empty() ? "List" : "Tuple";
                ctx.report(location_, "too_long",
                           type + " should have at most " + detail::plural(prefix_.size(), "item") +
                               " after validation, not " + std::to_string(n),
                           v,
                           sink->make_ctx({{"field_type", Value::string(type)},
                                           {"max_length", count_value(prefix_.size())},
                                           {"actual_length", count_value(n)}}));
            }
            return false;
        }
        for (std::uint32_t i = np; i < n; ++i) {
            PathGuard guard(ctx, i);
            if (!validate_child(rest_, items[i], ctx)) {
                ok = false;
                if (ctx.stop()) return false;
            }
        }
        if (ann) ann->set_all();
        return ok;
    }

  private:
    std::vector<const Node*> prefix_;
    const Node* rest_;
};

std::vector<const Node*> schema_list(const KeywordInput& in, std::string_view keyword) {
    const Value& list = in.schema_array(keyword);
    std::vector<const Node*> nodes;
    for (std::uint32_t i = 0; i < list.size(); ++i)
        nodes.push_back(in.sub(list.items()[i], in.location(keyword) + "/" + std::to_string(i)));
    return nodes;
}

}  // namespace

void make_items(const KeywordInput& in) {
    std::vector<const Node*> prefix;
    const Node* rest = nullptr;
    std::string rest_keyword = "items";
    if (in.draft() == Draft::kDraft2020_12) {
        if (in.get("prefixItems")) prefix = schema_list(in, "prefixItems");
        if (const Value* items = in.get("items")) {
            if (items->is_array()) in.fail("items", "must be a schema (use prefixItems for tuples in 2020-12)");
            rest = in.sub("items");
        }
    } else if (const Value* items = in.get("items")) {
        if (items->is_array()) {
            prefix = schema_list(in, "items");
            if (in.get("additionalItems")) {
                rest = in.sub("additionalItems");
                rest_keyword = "additionalItems";
            }
        } else {
            rest = in.sub("items");
        }
    }
    if (prefix.empty() && rest == nullptr) return;
    if (prefix.empty()) in.node().mutable_shape().items = rest;
    in.add(std::make_unique<ItemsValidator>(in.location(rest_keyword), std::move(prefix), rest));
}

}  // namespace slipstream::json::schema::validators
