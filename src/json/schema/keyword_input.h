// KeywordInput: what a keyword factory sees of the schema object it compiles.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "json/schema/compiler.h"
#include "json/schema/node.h"
#include "json/schema/registry.h"
#include "json/schema/schema_error.h"
#include "json/value.h"

namespace slipstream::json::schema::detail {

class KeywordInput {
  public:
    KeywordInput(Compiler& compiler, const json::Value& schema, const SchemaInfo& info, Node& node)
        : compiler_(compiler), schema_(schema), info_(info), node_(node) {}

    const json::Value* get(std::string_view keyword) const { return schema_.find(keyword); }
    const CompileOptions& options() const { return compiler_.options(); }
    /// Absolute location of a keyword of this schema object, e.g. "#/properties/a/minLength".
    std::string location(std::string_view keyword) const {
        return info_.location() + "/" + escape_pointer_token(keyword);
    }
    std::string location(std::string_view keyword, std::string_view key) const {
        return location(keyword) + "/" + escape_pointer_token(key);
    }
    [[noreturn]] void fail(std::string_view keyword, const std::string& reason) const {
        throw SchemaError(location(keyword), reason);
    }

    /// The compiled subschema `schema[keyword]`, or `schema[keyword][key]` / `[index]`.
    /// Marks this node as one that evaluates other nodes (see Node::mark_applicator).
    const Node* sub(std::string_view keyword) const { return sub(*get(keyword), location(keyword)); }
    const Node* sub(const json::Value& v, const std::string& location) const {
        node_.mark_applicator();
        return compiler_.subschema(v, location);
    }

    /// A non-negative integer keyword (2.0 is accepted as 2); fails otherwise.
    std::uint64_t count(std::string_view keyword) const {
        const json::Value& v = *get(keyword);
        if (v.type() == json::Type::kInt && v.as_int() >= 0) return static_cast<std::uint64_t>(v.as_int());
        if (v.type() == json::Type::kUint) return v.as_uint();
        if (v.type() == json::Type::kDouble && v.as_double() >= 0 && v.as_double() < 1.8e19 &&
            v.as_double() == static_cast<double>(static_cast<std::uint64_t>(v.as_double())))
            return static_cast<std::uint64_t>(v.as_double());
        fail(keyword, "must be a non-negative integer");
    }
    /// A keyword whose value must be a number.
    const json::Value& number(std::string_view keyword) const {
        const json::Value& v = *get(keyword);
        if (!v.is_number()) fail(keyword, "must be a number");
        return v;
    }
    /// An array of subschemas; fails when empty or not an array.
    const json::Value& schema_array(std::string_view keyword) const {
        const json::Value& v = *get(keyword);
        if (!v.is_array() || v.size() == 0) fail(keyword, "must be a non-empty array of schemas");
        return v;
    }

    void add(std::unique_ptr<Validator> v) const { node_.add(std::move(v)); }

    const json::Value& schema() const { return schema_; }
    const SchemaInfo& info() const { return info_; }
    Draft draft() const { return info_.draft; }
    Node& node() const { return node_; }
    Compiler& compiler() const { return compiler_; }
    SchemaData& data() const { return compiler_.data(); }

  private:
    Compiler& compiler_;
    const json::Value& schema_;
    const SchemaInfo& info_;
    Node& node_;
};

}  // namespace slipstream::json::schema::detail
