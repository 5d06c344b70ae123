// Value: Python's truthiness, equality, str/repr and json.dumps for Jinja values.
#include "agent/infer/jinja/value.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "agent/infer/jinja/limits.h"
#include "json/format_double.h"
#include "json/utf8.h"

namespace slipstream::agent::infer::jinja {

using base::Status;

namespace {

// Printing, comparing and serializing stop descending here.
constexpr int kMaxPrintDepth = kMaxDepth;

std::string float_text(double d) {
    if (std::isnan(d)) return "nan";
    if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
    char buf[json::kMaxDoubleChars];
    return std::string(buf, json::format_double(d, buf));
}

std::string repr_string(const std::string& s) {
    const bool dq = s.find('\'') != std::string::npos && s.find('"') == std::string::npos;
    const char q = dq ? '"' : '\'';
    std::string out(1, q);
    for (unsigned char c : s) {
        if (c == '\\') {
            out += "\\\\";
        } else if (c == q) {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else if (c < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + q;
}

std::string print(const Value& v, bool repr, int depth);

std::string print_items(const Value& v, int depth) {
    if (depth > kMaxPrintDepth) return "...";
    std::string out;
    if (v.is_array()) {
        out = "[";
        for (std::size_t i = 0; i < v.as_array().size(); ++i)
            out += (i ? ", " : "") + print(v.as_array()[i], true, depth + 1);
        return out + "]";
    }
    const Object& o = v.as_object();
    out = o.is_namespace ? "<Namespace {" : "{";
    for (std::size_t i = 0; i < o.items.size(); ++i) {
        out += (i ? ", " : "") + repr_string(o.items[i].first) + ": " + print(o.items[i].second, true, depth + 1);
    }
    return out + (o.is_namespace ? "}>" : "}");
}

std::string print(const Value& v, bool repr, int depth) {
    switch (v.kind()) {
        case Value::Kind::kUndefined:
            return "";
        case Value::Kind::kNone:
            return "None";
        case Value::Kind::kBool:
            return v.as_bool() ? "True" : "False";
        case Value::Kind::kInt:
            return std::to_string(v.as_int());
        case Value::Kind::kFloat:
            return float_text(v.as_double());
        case Value::Kind::kString:
            return repr ? repr_string(v.as_string()) : v.as_string();
        case Value::Kind::kArray:
        case Value::Kind::kObject:
            return print_items(v, depth);
        case Value::Kind::kCallable:
            return v.as_callable().macro != nullptr ? "<Macro>" : "<function " + v.as_callable().builtin + ">";
    }
    return "";
}

bool equal(const Value& a, const Value& b, int depth) {
    if (depth > kMaxPrintDepth) return false;
    if (a.is_number() && b.is_number()) {
        if (a.is_float() || b.is_float()) return a.as_double() == b.as_double();
        return a.as_int() == b.as_int();
    }
    if (a.kind() != b.kind()) return false;
    switch (a.kind()) {
        case Value::Kind::kUndefined:
        case Value::Kind::kNone:
            return true;
        case Value::Kind::kString:
            return a.as_string() == b.as_string();
        case Value::Kind::kArray: {
            const Array &x = a.as_array(), &y = b.as_array();
            if (x.size() != y.size()) return false;
            for (std::size_t i = 0; i < x.size(); ++i)
                if (!equal(x[i], y[i], depth + 1)) return false;
            return true;
        }
        case Value::Kind::kObject: {
            const Object &x = a.as_object(), &y = b.as_object();
            if (&x == &y) return true;
            if (x.items.size() != y.items.size()) return false;
            for (const auto& [k, v] : x.items) {
                const Value* w = y.find(k);
                if (w == nullptr || !equal(v, *w, depth + 1)) return false;
            }
            return true;
        }
        case Value::Kind::kCallable:
            return &a.as_callable() == &b.as_callable();
        default:
            return false;
    }
}

void json_string(std::string_view s, bool ensure_ascii, std::string& out) {
    out += '"';
    for (std::size_t i = 0; i < s.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        char buf[16];
        switch (c) {
            case '"':
                out += "\\\"";
                continue;
            case '\\':
                out += "\\\\";
                continue;
            case '\n':
                out += "\\n";
                continue;
            case '\r':
                out += "\\r";
                continue;
            case '\t':
                out += "\\t";
                continue;
            case '\b':
                out += "\\b";
                continue;
            case '\f':
                out += "\\f";
                continue;
            default:
                break;
        }
        if (c < 0x20 || (ensure_ascii && c == 0x7f)) {
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else if (c >= 0x80 && ensure_ascii) {
            const std::size_t n = json::detail::utf8_sequence_length(s, i);
            if (n == 0) {  // not UTF-8: Python would never hold such a str; write the byte as a code point
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
                continue;
            }
            uint32_t cp = c & (0xFF >> (n + 1));
            for (std::size_t k = 1; k < n; ++k)
                cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
            i += n - 1;
            if (cp >= 0x10000) {
                cp -= 0x10000;
                std::snprintf(buf, sizeof buf, "\\u%04x\\u%04x", 0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF));
            } else {
                std::snprintf(buf, sizeof buf, "\\u%04x", cp);
            }
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    out += '"';
}

class JsonWriter {
  public:
    JsonWriter(const JsonOptions& o, std::size_t max_bytes) : o_(o), max_(max_bytes) {}

    Status write(const Value& v, int depth) {
        if (depth > kMaxPrintDepth) return Status::out_of_range("tojson: value nested deeper than kMaxDepth");
        if (out_.size() > max_) return Status::out_of_range("tojson: JSON text over kMaxOutputBytes");
        switch (v.kind()) {
            case Value::Kind::kNone:
                out_ += "null";
                return Status::ok();
            case Value::Kind::kBool:
                out_ += v.as_bool() ? "true" : "false";
                return Status::ok();
            case Value::Kind::kInt:
                out_ += std::to_string(v.as_int());
                return Status::ok();
            case Value::Kind::kFloat:
                out_ += std::isnan(v.as_double())   ? "NaN"
                        : std::isinf(v.as_double()) ? (v.as_double() < 0 ? "-Infinity" : "Infinity")
                                                    : float_text(v.as_double());
                return Status::ok();
            case Value::Kind::kString:
                json_string(v.as_string(), o_.ensure_ascii, out_);
                return Status::ok();
            case Value::Kind::kArray:
                return write_array(v.as_array(), depth);
            case Value::Kind::kObject:
                return write_object(v.as_object(), depth);
            default:
                return Status::invalid_argument("Object of type " + std::string(v.type_name()) +
                                                " is not JSON serializable");
        }
    }
    std::string take() { return std::move(out_); }

  private:
    bool indenting() const { return o_.indent >= 0 || !o_.indent_text.empty(); }
    void newline(int depth) {
        if (!indenting()) return;
        out_ += '\n';
        for (int i = 0; i < depth; ++i)
            out_ += o_.indent_text.empty() ? std::string(static_cast<std::size_t>(o_.indent), ' ') : o_.indent_text;
    }

    Status write_array(const Array& a, int depth) {
        if (a.empty()) {
            out_ += "[]";
            return Status::ok();
        }
        out_ += '[';
        for (std::size_t i = 0; i < a.size(); ++i) {
            if (i != 0) out_ += o_.item_separator;
            newline(depth + 1);
            SLIPSTREAM_RETURN_IF_ERROR(write(a[i], depth + 1));
        }
        newline(depth);
        out_ += ']';
        return Status::ok();
    }

    Status write_object(const Object& o, int depth) {
        if (o.items.empty()) {
            out_ += "{}";
            return Status::ok();
        }
        std::vector<const std::pair<std::string, Value>*> items;
        for (const auto& item : o.items)
            items.push_back(&item);
        if (o_.sort_keys)
            std::stable_sort(items.begin(), items.end(), [](auto* a, auto* b) { return a->first < b->first; });
        out_ += '{';
        for (std::size_t i = 0; i < items.size(); ++i) {
            if (i != 0) out_ += o_.item_separator;
            newline(depth + 1);
            json_string(items[i]->first, o_.ensure_ascii, out_);
            out_ += o_.key_separator;
            SLIPSTREAM_RETURN_IF_ERROR(write(items[i]->second, depth + 1));
        }
        newline(depth);
        out_ += '}';
        return Status::ok();
    }

    const JsonOptions& o_;
    std::size_t max_;
    std::string out_;
};

}  // namespace

Value Value::array(Array a) {
    uint32_t depth = 0;
    bool ns = false;
    for (const Value& v : a) {
        depth = std::max(depth, v.depth_);
        ns = ns || v.has_namespace_;
    }
    Value out(std::make_shared<Array>(std::move(a)));
    out.depth_ = depth + 1;
    out.has_namespace_ = ns;
    return out;
}

Value Value::object(Object o) {
    uint32_t depth = 0;
    bool ns = o.is_namespace;
    for (const auto& item : o.items) {
        depth = std::max(depth, item.second.depth_);
        ns = ns || item.second.has_namespace_;
    }
    Value out(std::make_shared<Object>(std::move(o)));
    out.depth_ = depth + 1;
    out.has_namespace_ = ns;
    return out;
}

const Value* Object::find(std::string_view key) const {
    for (const auto& [k, v] : items)
        if (k == key) return &v;
    return nullptr;
}

void Object::set(std::string key, Value value) {
    for (auto& [k, v] : items) {
        if (k == key) {
            v = std::move(value);
            return;
        }
    }
    items.emplace_back(std::move(key), std::move(value));
}

bool Value::truthy() const {
    switch (kind()) {
        case Kind::kUndefined:
        case Kind::kNone:
            return false;
        case Kind::kBool:
            return as_bool();
        case Kind::kInt:
            return as_int() != 0;
        case Kind::kFloat:
            return as_double() != 0.0;
        case Kind::kString:
            return !as_string().empty();
        case Kind::kArray:
            return !as_array().empty();
        case Kind::kObject:
            return as_object().is_namespace || !as_object().items.empty();
        case Kind::kCallable:
            return true;
    }
    return false;
}

bool Value::equals(const Value& other) const {
    return equal(*this, other, 0);
}

std::string Value::str() const {
    return print(*this, false, 0);
}

std::string Value::repr() const {
    return is_undefined() ? "Undefined" : print(*this, true, 0);
}

std::string_view Value::type_name() const {
    switch (kind()) {
        case Kind::kUndefined:
            return "Undefined";
        case Kind::kNone:
            return "NoneType";
        case Kind::kBool:
            return "bool";
        case Kind::kInt:
            return "int";
        case Kind::kFloat:
            return "float";
        case Kind::kString:
            return "str";
        case Kind::kArray:
            return "list";
        case Kind::kObject:
            return as_object().is_namespace ? "Namespace" : "dict";
        case Kind::kCallable:
            return as_callable().macro != nullptr ? "Macro" : "function";
    }
    return "";
}

base::Result<std::string> to_json(const Value& value, const JsonOptions& options, std::size_t max_bytes) {
    JsonWriter w(options, max_bytes);
    SLIPSTREAM_RETURN_IF_ERROR(w.write(value, 0));
    std::string out = w.take();
    if (out.size() > max_bytes) return Status::out_of_range("tojson: JSON text over kMaxOutputBytes");
    return out;
}

}  // namespace slipstream::agent::infer::jinja
