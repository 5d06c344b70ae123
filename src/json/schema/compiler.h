// Compiler: turns registered schema documents into Nodes, memoized, with lazy $ref linking.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "json/schema/node.h"
#include "json/schema/registry.h"
#include "json/schema/schema.h"
#include "json/schema/schema_data.h"
#include "json/value.h"

namespace slipstream::json::schema::validators {
class RefValidator;
}

namespace slipstream::json::schema::detail {

using validators::RefValidator;

class Compiler {
  public:
    Compiler(const CompileOptions& options, SchemaData& data)
        : options_(options), data_(data), registry_(options, data) {}

    /// Registers `root` (already copied into the SchemaData arena), compiles it, then resolves
    /// and compiles every $ref / $dynamicRef target until none is pending.
    const Node* compile_document(const json::Value& root);
    /// Compiles the schema at `v` once (memoized by address, so cycles through $ref terminate).
    const Node* compile_node(const json::Value& v, const SchemaInfo& info);
    /// Compiles a subschema that discovery already visited (any applicator keyword's value).
    const Node* subschema(const json::Value& v, const std::string& location);
    /// Queues a reference to be resolved once the current tree is built.
    void add_pending(RefValidator* ref, std::string uri, std::string location, bool dynamic);

    Registry& registry() { return registry_; }
    const CompileOptions& options() const { return options_; }
    SchemaData& data() { return data_; }

  private:
    struct Pending {
        RefValidator* ref;
        std::string uri;
        std::string location;
    };
    void link();

    const CompileOptions& options_;
    SchemaData& data_;
    Registry registry_;
    std::unordered_map<const json::Value*, Node*> memo_;
    std::vector<Pending> pending_;
    bool has_dynamic_ref_ = false;
    int depth_ = 0;
};

}  // namespace slipstream::json::schema::detail
