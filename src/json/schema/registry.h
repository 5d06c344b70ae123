// Registry: the documents of a compile, their resources ($id), anchors, and $ref resolution.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "json/schema/node.h"
#include "json/schema/schema.h"
#include "json/schema/schema_data.h"
#include "json/value.h"

namespace slipstream::json::schema::detail {

/// Vocabularies a schema resource uses (2020-12 `$vocabulary`; draft-07 has them all).
enum Vocab : std::uint8_t {
    kVocabApplicator = 1,
    kVocabValidation = 2,
    kVocabUnevaluated = 4,
    kVocabStandard = 7,
};

/// Where a schema object sits: its base URI, its pointer within its resource, its dialect.
struct SchemaInfo {
    std::string base;
    std::string pointer;
    Draft draft = Draft::kDraft2020_12;
    std::uint8_t vocab = kVocabStandard;
    bool format_assert = false;
    Resource* resource = nullptr;

    /// Absolute location for errors: "base#pointer".
    std::string location() const { return base + "#" + pointer; }
};

struct RefTarget {
    const json::Value* value = nullptr;
    const SchemaInfo* info = nullptr;
    bool dynamic_anchor = false;  // the fragment named a $dynamicAnchor
};

class Registry {
  public:
    Registry(const CompileOptions& options, SchemaData& data) : options_(options), data_(data) {}

    /// Registers a document retrieved as `uri` (its root may carry another $id) and discovers
    /// every resource, anchor and subschema position in it.
    const SchemaInfo& add_document(const json::Value& root, const std::string& uri);
    /// The info of a discovered schema position, or nullptr.
    const SchemaInfo* find(const json::Value* v) const;
    /// Resolves an absolute URI (with optional fragment), loading remote documents through the
    /// builtin metaschemas or the resolver. Throws SchemaError at `location` when it cannot.
    RefTarget resolve(const std::string& uri, const std::string& location);

    struct DynamicAnchor {
        Resource* resource;
        std::string name;
        const json::Value* value;
    };
    const std::vector<DynamicAnchor>& dynamic_anchors() const { return dynamic_anchors_; }

  private:
    struct Anchor {
        const json::Value* value;
        bool dynamic;
    };

    void discover(const json::Value& v, const SchemaInfo& parent, std::string pointer, bool doc_root, int depth);
    void discover_children(const json::Value& v, const SchemaInfo& me, int depth);
    void apply_schema_keyword(SchemaInfo& me, std::string_view uri, const std::string& location);
    const json::Value& load(const std::string& uri, const std::string& location);
    RefTarget navigate(const json::Value& root, std::string_view pointer, const std::string& uri,
                       const std::string& location);
    Resource* new_resource(const std::string& uri);

    const CompileOptions& options_;
    SchemaData& data_;
    std::unordered_map<std::string, const json::Value*> resources_;
    std::unordered_map<std::string, Anchor> anchors_;
    std::unordered_map<const json::Value*, SchemaInfo> info_;
    std::vector<DynamicAnchor> dynamic_anchors_;
    std::unordered_set<std::string> loading_;  // documents being loaded: a $schema cycle is an error
};

/// "~" -> "~0", "/" -> "~1".
std::string escape_pointer_token(std::string_view token);

}  // namespace slipstream::json::schema::detail
