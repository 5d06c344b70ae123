// Filters and tests: Jinja's builtins as chat templates use them (tojson as HF transformers defines it).
#include <algorithm>
#include <cmath>

#include "agent/infer/jinja/builtins.h"
#include "agent/infer/jinja/limits.h"
#include "agent/infer/jinja/str_ops.h"
#include "json/utf8.h"

namespace slipstream::agent::infer::jinja {

using base::Result;
using base::Status;

namespace {

Status type_error(std::string_view filter, const Value& v) {
    return Status::invalid_argument(std::string(filter) + ": unsupported argument of type " +
                                    std::string(v.type_name()));
}

Result<std::string> string_arg(const CallArgs& a, std::size_t i, std::string_view name, std::string_view what) {
    const Value* v = a.get(i, name);
    if (v == nullptr || !v->is_string()) {
        return Status::invalid_argument(std::string(what) + ": argument '" + std::string(name) + "' must be a string");
    }
    return v->as_string();
}

bool flag(const CallArgs& a, std::size_t i, std::string_view name) {
    const Value* v = a.get(i, name);
    return v != nullptr && v->truthy();
}

// Jinja's attribute lookup for filters: "a.b" walks dicts; a list index may be a number.
Value attribute(const Value& v, std::string_view path) {
    Value cur = v;
    while (!path.empty()) {
        const std::size_t dot = path.find('.');
        const std::string_view part = path.substr(0, dot);
        path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
        if (cur.is_object()) {
            const Value* next = cur.as_object().find(part);
            cur = next != nullptr ? *next : Value::undefined(std::string(part));
        } else {
            return Value::undefined(std::string(part));
        }
    }
    return cur;
}

Result<Value> to_json_filter(const Value& v, const CallArgs& a, Budget& budget) {
    JsonOptions o;
    if (const Value* indent = a.get(0, "indent"); indent != nullptr && !indent->is_none()) {
        if (indent->is_string()) {
            o.indent_text = indent->as_string();
            o.indent = 0;
        } else if (indent->is_int()) {
            o.indent = static_cast<int>(std::clamp<int64_t>(indent->as_int(), 0, 64));
        } else {
            return type_error("tojson indent", *indent);
        }
        o.item_separator = ",";
    }
    if (const Value* sep = a.get(99, "separators"); sep != nullptr && !sep->is_none()) {
        if (!sep->is_array() || sep->as_array().size() != 2 || !sep->as_array()[0].is_string() ||
            !sep->as_array()[1].is_string()) {
            return Status::invalid_argument("tojson: separators must be two strings");
        }
        o.item_separator = sep->as_array()[0].as_string();
        o.key_separator = sep->as_array()[1].as_string();
    }
    o.sort_keys = flag(a, 99, "sort_keys");
    o.ensure_ascii = flag(a, 99, "ensure_ascii");
    SLIPSTREAM_ASSIGN_OR_RETURN(std::string text, to_json(v, o, kMaxOutputBytes));
    SLIPSTREAM_RETURN_IF_ERROR(budget.spend_bytes(text.size()));
    return Value::string(std::move(text));
}

Result<Value> join(const Value& v, const CallArgs& a, Budget& budget) {
    const Value* sep = a.get(0, "d");
    if (sep != nullptr && !sep->is_string()) return type_error("join separator", *sep);
    const Value* attr = a.get(1, "attribute");
    SLIPSTREAM_ASSIGN_OR_RETURN(Array items, iterate(v, budget));
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i != 0 && sep != nullptr) out += sep->as_string();
        out += (attr != nullptr ? attribute(items[i], attr->str()) : items[i]).str();
        SLIPSTREAM_RETURN_IF_ERROR(budget.spend_bytes(out.size() > kMaxOutputBytes ? out.size() : 0));
    }
    SLIPSTREAM_RETURN_IF_ERROR(budget.spend_bytes(out.size()));
    return Value::string(std::move(out));
}

Result<Value> indent(const Value& v, const CallArgs& a, Budget& budget) {
    std::string pad = "    ";
    if (const Value* w = a.get(0, "width"); w != nullptr) {
        if (w->is_string()) {
            pad = w->as_string();
        } else if (w->is_int() && w->as_int() >= 0 && w->as_int() <= 1024) {
            pad = std::string(static_cast<std::size_t>(w->as_int()), ' ');
        } else {
            return type_error("indent width", *w);
        }
    }
    const bool first = flag(a, 1, "first"), blank = flag(a, 2, "blank");
    std::string s = v.str() + "\n";
    std::vector<std::string> lines;
    for (std::size_t at = 0; at < s.size();) {
        const std::size_t nl = s.find('\n', at);
        lines.push_back(s.substr(at, nl - at));
        at = nl + 1;
    }
    std::string out = lines.empty() ? "" : lines[0];
    for (std::size_t i = 1; i < lines.size(); ++i)
        out += "\n" + (blank || !lines[i].empty() ? pad : "") + lines[i];
    if (first) out = pad + out;
    SLIPSTREAM_RETURN_IF_ERROR(budget.spend_bytes(out.size()));
    return Value::string(std::move(out));
}

// select/reject/selectattr/rejectattr: keep items whose test (truthiness when none is named) is `keep`.
Result<Value> select(const Value& v, const CallArgs& a, bool by_attribute, bool keep, Budget& budget) {
    std::size_t next = 0;
    std::string attr;
    if (by_attribute) {
        SLIPSTREAM_ASSIGN_OR_RETURN(attr, string_arg(a, next++, "attribute", "selectattr"));
    }
    std::string test;
    if (const Value* t = a.get(next, "test"); t != nullptr) {
        if (!t->is_string()) return type_error("select test", *t);
        test = t->as_string();
        ++next;
    }
    CallArgs test_args;
    for (std::size_t i = next; i < a.positional.size(); ++i)
        test_args.positional.push_back(a.positional[i]);
    SLIPSTREAM_ASSIGN_OR_RETURN(Array items, iterate(v, budget));
    Array out;
    for (const Value& item : items) {
        const Value subject = by_attribute ? attribute(item, attr) : item;
        bool pass = subject.truthy();
        if (!test.empty()) {
            SLIPSTREAM_ASSIGN_OR_RETURN(pass, apply_test(test, subject, test_args));
        }
        if (pass == keep) out.push_back(item);
    }
    return Value::array(std::move(out));
}

Result<Value> map(const Value& v, const CallArgs& a, Budget& budget) {
    SLIPSTREAM_ASSIGN_OR_RETURN(Array items, iterate(v, budget));
    Array out;
    if (const Value* attr = a.get(99, "attribute"); attr != nullptr) {
        const Value* def = a.get(99, "default");
        for (const Value& item : items) {
            Value got = attribute(item, attr->str());
            out.push_back(got.is_undefined() && def != nullptr ? *def : got);
        }
        return Value::array(std::move(out));
    }
    SLIPSTREAM_ASSIGN_OR_RETURN(std::string filter, string_arg(a, 0, "filter", "map"));
    CallArgs rest;
    rest.positional.assign(a.positional.begin() + 1, a.positional.end());
    rest.named = a.named;
    for (const Value& item : items) {
        SLIPSTREAM_ASSIGN_OR_RETURN(Value got, apply_filter(filter, item, rest, budget));
        out.push_back(std::move(got));
    }
    return Value::array(std::move(out));
}

Result<Value> length(const Value& v) {
    if (v.is_string()) return Value::integer(static_cast<int64_t>(json::detail::count_code_points(v.as_string())));
    if (v.is_array()) return Value::integer(static_cast<int64_t>(v.as_array().size()));
    if (v.is_object()) return Value::integer(static_cast<int64_t>(v.as_object().items.size()));
    if (v.is_undefined()) return Value::integer(0);
    return type_error("length", v);
}

Result<Value> first_or_last(const Value& v, bool first, Budget& budget) {
    SLIPSTREAM_ASSIGN_OR_RETURN(Array items, iterate(v, budget));
    if (items.empty()) return Value::undefined(first ? "first" : "last");
    return first ? items.front() : items.back();
}

Result<Value> items(const Value& v) {
    if (v.is_undefined()) return Value::array({});
    if (!v.is_object()) return type_error("items", v);
    Array out;
    for (const auto& [k, x] : v.as_object().items)
        out.push_back(Value::array({Value::string(k), x}));
    return Value::array(std::move(out));
}

Result<Value> escape(const Value& v) {
    std::string out;
    for (char c : v.str()) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&#34;";
                break;
            case '\'':
                out += "&#39;";
                break;
            default:
                out += c;
        }
    }
    return Value::string(std::move(out));
}

Result<Value> string_filter(std::string_view name, const Value& v, const CallArgs& a) {
    const std::string s = v.str();
    if (name == "trim") {
        const Value* chars = a.get(0, "chars");
        const std::string* set = chars != nullptr && chars->is_string() ? &chars->as_string() : nullptr;
        return Value::string(py_strip(s, set, true, true));
    }
    if (name == "lower") return Value::string(py_lower(s));
    if (name == "upper") return Value::string(py_upper(s));
    if (name == "capitalize") return Value::string(py_capitalize(s));
    if (name == "title") return Value::string(py_title(s));
    if (name == "string") return v.is_string() ? v : Value::string(s);
    // replace
    SLIPSTREAM_ASSIGN_OR_RETURN(std::string old, string_arg(a, 0, "old", "replace"));
    SLIPSTREAM_ASSIGN_OR_RETURN(std::string with, string_arg(a, 1, "new", "replace"));
    const Value* count = a.get(2, "count");
    return Value::string(py_replace(s, old, with, count != nullptr && count->is_int() ? count->as_int() : -1));
}

Result<Value> number_filter(std::string_view name, const Value& v, const CallArgs& a) {
    if (name == "abs") {
        if (v.is_float()) return Value::number(std::fabs(v.as_double()));
        if (v.is_number() && v.as_int() != INT64_MIN) return Value::integer(std::abs(v.as_int()));
        return type_error("abs", v);
    }
    const Value* def = a.get(0, "default");
    if (name == "int") {
        if (v.is_number()) return Value::integer(static_cast<int64_t>(v.as_double()));
        if (v.is_string()) {
            char* end = nullptr;
            const long long n = std::strtoll(v.as_string().c_str(), &end, 10);
            if (end != v.as_string().c_str() && *end == '\0') return Value::integer(n);
        }
        return def != nullptr ? *def : Value::integer(0);
    }
    if (v.is_number()) return Value::number(v.as_double());
    if (v.is_string()) {
        char* end = nullptr;
        const double d = std::strtod(v.as_string().c_str(), &end);
        if (end != v.as_string().c_str() && *end == '\0') return Value::number(d);
    }
    return def != nullptr ? *def : Value::number(0.0);
}

Result<Value> list_filter(std::string_view name, const Value& v, Budget& budget) {
    SLIPSTREAM_ASSIGN_OR_RETURN(Array items, iterate(v, budget));
    if (name == "reverse") {
        if (v.is_string()) {
            std::string out;
            for (auto it = items.rbegin(); it != items.rend(); ++it)
                out += it->as_string();
            return Value::string(std::move(out));
        }
        std::reverse(items.begin(), items.end());
    } else if (name == "unique") {
        Array out;
        for (const Value& x : items) {
            bool seen = false;
            for (const Value& y : out)
                seen = seen || x.equals(y);
            SLIPSTREAM_RETURN_IF_ERROR(budget.spend_items(static_cast<int64_t>(out.size())));
            if (!seen) out.push_back(x);
        }
        return Value::array(std::move(out));
    }
    return Value::array(std::move(items));
}

}  // namespace

Status Budget::spend_items(int64_t n) {
    items_ += n;
    if (items_ > kMaxLoopIterations) {
        return Status::out_of_range("template rendering passed kMaxLoopIterations (" +
                                    std::to_string(kMaxLoopIterations) + " loop iterations and list elements)");
    }
    return Status::ok();
}

Status Budget::spend_bytes(std::size_t n) {
    bytes_ += n;
    if (n > kMaxOutputBytes) {
        return Status::out_of_range("template rendering built a string over kMaxOutputBytes (" +
                                    std::to_string(kMaxOutputBytes) + " bytes)");
    }
    if (bytes_ > kMaxBuiltBytes) {
        return Status::out_of_range("template rendering built more than kMaxBuiltBytes (" +
                                    std::to_string(kMaxBuiltBytes) + " bytes of strings)");
    }
    return Status::ok();
}

const Value* CallArgs::get(std::size_t i, std::string_view name) const {
    if (i < positional.size()) return &positional[i];
    for (const auto& [k, v] : named)
        if (k == name) return &v;
    return nullptr;
}

std::vector<std::string_view> code_points(std::string_view s) {
    std::vector<std::string_view> out;
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t n = std::max<std::size_t>(1, json::detail::utf8_sequence_length(s, i));
        out.push_back(s.substr(i, n));
        i += n;
    }
    return out;
}

Result<Array> iterate(const Value& v, Budget& budget) {
    Array out;
    if (v.is_array()) {
        out = v.as_array();
    } else if (v.is_object()) {
        for (const auto& item : v.as_object().items)
            out.push_back(Value::string(item.first));
    } else if (v.is_string()) {
        for (std::string_view cp : code_points(v.as_string()))
            out.push_back(Value::string(std::string(cp)));
    } else if (!v.is_undefined()) {
        return Status::invalid_argument("'" + std::string(v.type_name()) + "' object is not iterable");
    }
    SLIPSTREAM_RETURN_IF_ERROR(budget.spend_items(static_cast<int64_t>(out.size())));
    return out;
}

Result<bool> contains(const Value& container, const Value& item, Budget& budget) {
    if (container.is_string()) {
        if (!item.is_string()) {
            return Status::invalid_argument("'in <string>' requires string as left operand, not " +
                                            std::string(item.type_name()));
        }
        return container.as_string().find(item.as_string()) != std::string::npos;
    }
    if (container.is_array()) {
        SLIPSTREAM_RETURN_IF_ERROR(budget.spend_items(static_cast<int64_t>(container.as_array().size())));
        for (const Value& x : container.as_array())
            if (x.equals(item)) return true;
        return false;
    }
    if (container.is_object()) return item.is_string() && container.as_object().find(item.as_string()) != nullptr;
    if (container.is_undefined()) return false;
    return Status::invalid_argument("argument of type '" + std::string(container.type_name()) + "' is not iterable");
}

Result<Value> apply_filter(std::string_view name, const Value& v, const CallArgs& a, Budget& budget) {
    if (name == "default" || name == "d") {
        const bool use_default = flag(a, 1, "boolean") ? !v.truthy() : v.is_undefined();
        if (!use_default) return v;
        const Value* def = a.get(0, "default_value");
        return def != nullptr ? *def : Value::string("");
    }
    if (name == "trim" || name == "lower" || name == "upper" || name == "capitalize" || name == "title" ||
        name == "string" || name == "replace") {
        SLIPSTREAM_ASSIGN_OR_RETURN(Value s, string_filter(name, v, a));
        SLIPSTREAM_RETURN_IF_ERROR(budget.spend_bytes(s.as_string().size()));
        return s;
    }
    if (name == "length" || name == "count") return length(v);
    if (name == "tojson") return to_json_filter(v, a, budget);
    if (name == "first" || name == "last") return first_or_last(v, name == "first", budget);
    if (name == "join") return join(v, a, budget);
    if (name == "items") return items(v);
    if (name == "selectattr" || name == "rejectattr") return select(v, a, true, name == "selectattr", budget);
    if (name == "select" || name == "reject") return select(v, a, false, name == "select", budget);
    if (name == "map") return map(v, a, budget);
    if (name == "indent") return indent(v, a, budget);
    if (name == "list" || name == "reverse" || name == "unique") return list_filter(name, v, budget);
    if (name == "safe") return v;
    if (name == "e" || name == "escape") return escape(v);
    if (name == "abs" || name == "int" || name == "float") return number_filter(name, v, a);
    return Status::invalid_argument("no filter named '" + std::string(name) + "'");
}

Result<bool> apply_test(std::string_view name, const Value& v, const CallArgs& a) {
    const Value* arg = a.get(0, "other");
    if (name == "defined") return !v.is_undefined();
    if (name == "undefined") return v.is_undefined();
    if (name == "none") return v.is_none();
    if (name == "string") return v.is_string();
    if (name == "mapping") return v.is_object();
    if (name == "number") return v.is_number();
    if (name == "integer") return v.is_int();
    if (name == "float") return v.is_float();
    if (name == "boolean") return v.is_bool();
    if (name == "true") return v.is_bool() && v.as_bool();
    if (name == "false") return v.is_bool() && !v.as_bool();
    if (name == "callable") return v.is_callable();
    if (name == "iterable") return v.is_string() || v.is_array() || v.is_object() || v.is_undefined();
    if (name == "sequence") return v.is_string() || v.is_array() || v.is_object() || v.is_undefined();
    if (name == "lower") return v.is_string() && py_lower(v.as_string()) == v.as_string();
    if (name == "upper") return v.is_string() && py_upper(v.as_string()) == v.as_string();
    if (name == "odd" || name == "even" || name == "divisibleby") {
        if (!v.is_int() && !v.is_bool()) return type_error(name, v);
        if (name == "odd") return v.as_int() % 2 != 0;
        if (name == "even") return v.as_int() % 2 == 0;
        if (arg == nullptr || !arg->is_int() || arg->as_int() == 0)
            return Status::invalid_argument("divisibleby: bad divisor");
        return v.as_int() % arg->as_int() == 0;
    }
    static constexpr std::string_view kWithArgument[] = {"eq", "equalto", "==", "ne", "!=", "sameas", "in", "lt",
                                                         "<",  "le",      "<=", "gt", "ge", ">",      ">="};
    if (std::find(std::begin(kWithArgument), std::end(kWithArgument), name) == std::end(kWithArgument)) {
        return Status::invalid_argument("no test named '" + std::string(name) + "'");
    }
    if (arg == nullptr) return Status::invalid_argument("test '" + std::string(name) + "' needs an argument");
    if (name == "eq" || name == "equalto" || name == "==") return v.equals(*arg);
    if (name == "ne" || name == "!=") return !v.equals(*arg);
    if (name == "sameas") return v.kind() == arg->kind() && v.equals(*arg);
    if (name == "in") {
        Budget unlimited_for_one_test;
        return contains(*arg, v, unlimited_for_one_test);
    }
    if (name == "lt" || name == "<" || name == "le" || name == "<=" || name == "gt" || name == ">" || name == "ge" ||
        name == ">=") {
        double x, y;
        if (v.is_number() && arg->is_number()) {
            x = v.as_double();
            y = arg->as_double();
        } else if (v.is_string() && arg->is_string()) {
            x = v.as_string().compare(arg->as_string());
            y = 0;
        } else {
            return type_error(name, v);
        }
        if (name == "lt" || name == "<") return x < y;
        if (name == "le" || name == "<=") return x <= y;
        if (name == "gt" || name == ">") return x > y;
        return x >= y;
    }
    return Status::invalid_argument("no test named '" + std::string(name) + "'");
}

}  // namespace slipstream::agent::infer::jinja
