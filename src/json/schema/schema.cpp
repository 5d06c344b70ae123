// compile() and Schema::validate(): the public entry points.
#include "json/schema/schema.h"

#include "json/schema/compiler.h"
#include "json/schema/context.h"
#include "json/schema/schema_data.h"

namespace slipstream::json::schema {
namespace {

constexpr int kMaxCopyDepth = 512;

// The compiled schema keeps its own copy of the document: validators point into it.
json::Value copy_value(const json::Value& v, base::Arena& arena, int depth) {
    if (depth > kMaxCopyDepth) throw SchemaError("#", "schema nested deeper than 512 levels");
    switch (v.type()) {
        case json::Type::kString:
            return json::Value::string(arena.copy(v.as_string()));
        case json::Type::kBigInt:
            return json::Value::big_integer(arena.copy(v.as_decimal()));
        case json::Type::kArray: {
            auto* items = arena.make_array<json::Value>(v.size());
            for (std::uint32_t i = 0; i < v.size(); ++i)
                items[i] = copy_value(v.items()[i], arena, depth + 1);
            return json::Value::array(items, v.size());
        }
        case json::Type::kObject: {
            auto* members = arena.make_array<json::Member>(v.size());
            for (std::uint32_t i = 0; i < v.size(); ++i) {
                const json::Member& m = v.members()[i];
                members[i] = json::Member{arena.copy(m.key), copy_value(m.value, arena, depth + 1)};
            }
            return json::Value::object(members, v.size());
        }
        default:
            return v;
    }
}

}  // namespace

Schema compile(const json::Value& schema, const CompileOptions& options) {
    auto data = std::make_shared<detail::SchemaData>();
    data->max_depth = options.max_depth == 0 ? 1 : options.max_depth;
    data->max_stack_bytes = options.max_stack_bytes;
    const json::Value* root = data->arena.make<json::Value>(copy_value(schema, data->arena, 0));
    detail::Compiler compiler(options, *data);
    data->root = compiler.compile_document(*root);
    return Schema(std::move(data));
}

bool Schema::validate(const json::Value& instance, ErrorSink* errors) const {
    if (data_ == nullptr) return true;
    detail::Context ctx(errors, data_->max_depth, data_->max_stack_bytes);
    return data_->root->validate(instance, ctx, nullptr);
}

Draft Schema::draft() const {
    return data_ ? data_->draft : Draft::kDraft2020_12;
}

}  // namespace slipstream::json::schema
