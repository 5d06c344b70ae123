// Value: a Jinja value with Python's semantics (undefined, none, bool, int, float, str, list, dict, callable).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "base/result.h"

namespace slipstream::agent::infer::jinja {

class Value;
struct Node;

using Array = std::vector<Value>;

/// A dict: string keys in insertion order (Python dicts keep it; chat templates only use string keys).
struct Object {
    std::vector<std::pair<std::string, Value>> items;
    bool is_namespace = false;  // made by namespace(...): `set ns.x = ...` may assign into it

    const Value* find(std::string_view key) const;
    /// Replaces the value under `key`, or appends it.
    void set(std::string key, Value value);
};

/// A macro (its AST node lives as long as the Template) or a global function by name.
struct Callable {
    const Node* macro = nullptr;
    std::string builtin;  // "raise_exception", "namespace", "range", "strftime_now", "dict"
};

/// Copies are cheap: strings, lists and dicts are shared (templates cannot change them; only namespaces are written).
class Value {
  public:
    enum class Kind : std::uint8_t { kUndefined, kNone, kBool, kInt, kFloat, kString, kArray, kObject, kCallable };

    /// Undefined, remembering the name it was looked up by (for "'x' is undefined").
    Value() = default;
    static Value undefined(std::string name) { return Value(Undefined{std::move(name)}); }
    static Value none() { return Value(None{}); }
    static Value boolean(bool b) { return Value(b); }
    static Value integer(int64_t i) { return Value(i); }
    static Value number(double d) { return Value(d); }
    static Value string(std::string s) { return Value(std::make_shared<const std::string>(std::move(s))); }
    static Value array(Array a);
    static Value object(Object o);
    static Value callable(Callable c) { return Value(std::make_shared<const Callable>(std::move(c))); }

    Kind kind() const { return static_cast<Kind>(v_.index()); }
    bool is_undefined() const { return kind() == Kind::kUndefined; }
    bool is_none() const { return kind() == Kind::kNone; }
    bool is_bool() const { return kind() == Kind::kBool; }
    bool is_int() const { return kind() == Kind::kInt; }
    bool is_float() const { return kind() == Kind::kFloat; }
    /// int, float or bool (bool is a number in Python).
    bool is_number() const { return is_int() || is_float() || is_bool(); }
    bool is_string() const { return kind() == Kind::kString; }
    bool is_array() const { return kind() == Kind::kArray; }
    bool is_object() const { return kind() == Kind::kObject; }
    bool is_callable() const { return kind() == Kind::kCallable; }

    bool as_bool() const { return std::get<bool>(v_); }
    /// An int or bool as int64.
    int64_t as_int() const { return is_bool() ? std::get<bool>(v_) : std::get<int64_t>(v_); }
    /// Any number as double.
    double as_double() const { return is_float() ? std::get<double>(v_) : static_cast<double>(as_int()); }
    const std::string& as_string() const { return *std::get<std::shared_ptr<const std::string>>(v_); }
    const Array& as_array() const { return *std::get<std::shared_ptr<Array>>(v_); }
    const Object& as_object() const { return *std::get<std::shared_ptr<Object>>(v_); }
    /// The dict itself (shared): only namespaces are written through it.
    Object& mutable_object() const { return *std::get<std::shared_ptr<Object>>(v_); }
    const Callable& as_callable() const { return *std::get<std::shared_ptr<const Callable>>(v_); }
    const std::string& undefined_name() const { return std::get<Undefined>(v_).name; }
    /// Nesting of lists and dicts (0 for a scalar), as of when the value was made (a namespace can change later).
    uint32_t depth() const { return depth_; }
    /// Whether a namespace is in it (or it is one): such values are not stored into a namespace, so no cycle forms.
    bool has_namespace() const { return has_namespace_; }

    /// Python's bool(x); undefined is false.
    bool truthy() const;
    /// Python's ==: deep for lists and dicts, 1 == 1.0 == True; undefined equals only undefined.
    bool equals(const Value& other) const;
    /// Python's str(x): None, True, 1.5, ['a', 1], {'k': 'v'}; undefined is "".
    std::string str() const;
    /// Python's repr(x): strings quoted as Python quotes them.
    std::string repr() const;
    /// Python's type name, for error messages: "str", "int", "list", "dict", "NoneType", "undefined".
    std::string_view type_name() const;

  private:
    struct Undefined {
        std::string name;
    };
    struct None {};
    template <typename T>
    explicit Value(T v) : v_(std::move(v)) {}

    std::variant<Undefined, None, bool, int64_t, double, std::shared_ptr<const std::string>, std::shared_ptr<Array>,
                 std::shared_ptr<Object>, std::shared_ptr<const Callable>>
        v_;
    uint32_t depth_ = 0;
    bool has_namespace_ = false;
};

/// json.dumps(value, ensure_ascii, indent, separators, sort_keys) as Python writes it; indent < 0 is None.
/// Undefined and callables are errors ("Object of type undefined is not JSON serializable").
struct JsonOptions {
    int indent = -1;
    std::string indent_text;  // when indent is given as a string
    std::string item_separator = ", ";
    std::string key_separator = ": ";
    bool sort_keys = false;
    bool ensure_ascii = false;
};
base::Result<std::string> to_json(const Value& value, const JsonOptions& options, std::size_t max_bytes);

}  // namespace slipstream::agent::infer::jinja
