// Compiler: memoized node construction, then lazy linking of $ref / $dynamicRef targets.
#include "json/schema/compiler.h"

#include "json/schema/keywords.h"
#include "json/schema/schema_error.h"
#include "json/schema/validators/ref_validator.h"

namespace slipstream::json::schema::detail {
namespace {
constexpr int kMaxNesting = 512;
}

const Node* Compiler::compile_document(const json::Value& root) {
    const SchemaInfo& info = registry_.add_document(root, options_.base_uri);
    data_.draft = info.draft;
    const Node* node = compile_node(root, info);
    link();
    return node;
}

const Node* Compiler::compile_node(const json::Value& v, const SchemaInfo& info) {
    if (auto it = memo_.find(&v); it != memo_.end()) return it->second;
    if (v.is_bool()) {
        data_.nodes.push_back(std::make_unique<Node>(v.as_bool() ? Node::Kind::kTrue : Node::Kind::kFalse,
                                                     info.location(), info.resource));
        return memo_[&v] = data_.nodes.back().get();
    }
    if (!v.is_object()) throw SchemaError(info.location(), "a schema must be an object or a boolean");
    if (depth_ >= kMaxNesting) throw SchemaError(info.location(), "schema nested deeper than 512 levels");
    data_.nodes.push_back(std::make_unique<Node>(Node::Kind::kKeywords, info.location(), info.resource));
    Node* node = data_.nodes.back().get();
    memo_[&v] = node;
    ++depth_;
    add_keywords(KeywordInput(*this, v, info, *node));
    --depth_;
    node->finish();
    return node;
}

const Node* Compiler::subschema(const json::Value& v, const std::string& location) {
    const SchemaInfo* info = registry_.find(&v);
    if (info == nullptr) throw SchemaError(location, "internal error: subschema was not discovered");
    return compile_node(v, *info);
}

void Compiler::add_pending(RefValidator* ref, std::string uri, std::string location, bool dynamic) {
    has_dynamic_ref_ |= dynamic;
    pending_.push_back(Pending{ref, std::move(uri), std::move(location)});
}

void Compiler::link() {
    std::size_t anchors_done = 0;
    for (;;) {
        while (!pending_.empty()) {
            Pending p = std::move(pending_.back());
            pending_.pop_back();
            RefTarget target = registry_.resolve(p.uri, p.location);
            p.ref->link(compile_node(*target.value, *target.info), target.dynamic_anchor);
        }
        // $dynamicRef looks up `$dynamicAnchor`s of whatever resources are in the dynamic scope at
        // run time, so every such anchor must be compiled before validation starts.
        const auto& anchors = registry_.dynamic_anchors();
        if (!has_dynamic_ref_ || anchors_done == anchors.size()) break;
        while (anchors_done < anchors.size()) {
            Registry::DynamicAnchor a = anchors[anchors_done++];
            const Node* node = compile_node(*a.value, *registry_.find(a.value));
            a.resource->dynamic_anchors.emplace_back(a.name, node);
        }
    }
}

}  // namespace slipstream::json::schema::detail
