// Methods: the str and dict methods chat templates call (strip, split, startswith, items, get, ...) and loop.cycle.
#include "agent/infer/jinja/builtins.h"
#include "agent/infer/jinja/str_ops.h"

namespace slipstream::agent::infer::jinja {

using base::Result;
using base::Status;

namespace {

Status no_method(const Value& object, std::string_view name) {
    return Status::invalid_argument("'" + std::string(object.type_name()) + "' object has no method '" +
                                    std::string(name) + "'");
}

Result<const std::string*> optional_string(const CallArgs& a, std::size_t i, std::string_view name) {
    const Value* v = a.get(i, name);
    if (v == nullptr || v->is_none()) return static_cast<const std::string*>(nullptr);
    if (!v->is_string()) return Status::invalid_argument(std::string(name) + " must be a string or None");
    return &v->as_string();
}

// startswith/endswith accept one string or a tuple of them.
Result<bool> affix(const std::string& s, const CallArgs& a, bool prefix) {
    const Value* arg = a.get(0, prefix ? "prefix" : "suffix");
    if (arg == nullptr) return Status::invalid_argument("startswith/endswith need an argument");
    Array options = arg->is_array() ? arg->as_array() : Array{*arg};
    for (const Value& o : options) {
        if (!o.is_string()) return Status::invalid_argument("startswith/endswith take str or a tuple of str");
        const std::string& x = o.as_string();
        if (x.size() <= s.size() && s.compare(prefix ? 0 : s.size() - x.size(), x.size(), x) == 0) return true;
    }
    return false;
}

Result<Value> string_method(const Value& object, std::string_view name, const CallArgs& a, Budget& budget) {
    const std::string& s = object.as_string();
    if (name == "strip" || name == "lstrip" || name == "rstrip") {
        SLIPSTREAM_ASSIGN_OR_RETURN(const std::string* chars, optional_string(a, 0, "chars"));
        return Value::string(py_strip(s, chars, name != "rstrip", name != "lstrip"));
    }
    if (name == "upper") return Value::string(py_upper(s));
    if (name == "lower") return Value::string(py_lower(s));
    if (name == "title") return Value::string(py_title(s));
    if (name == "capitalize") return Value::string(py_capitalize(s));
    if (name == "startswith" || name == "endswith") {
        SLIPSTREAM_ASSIGN_OR_RETURN(bool yes, affix(s, a, name == "startswith"));
        return Value::boolean(yes);
    }
    if (name == "replace") {
        const Value* old = a.get(0, "old");
        const Value* with = a.get(1, "new");
        const Value* count = a.get(2, "count");
        if (old == nullptr || with == nullptr || !old->is_string() || !with->is_string()) {
            return Status::invalid_argument("replace() takes two strings");
        }
        std::string out = py_replace(s, old->as_string(), with->as_string(), count != nullptr ? count->as_int() : -1);
        SLIPSTREAM_RETURN_IF_ERROR(budget.spend_bytes(out.size()));
        return Value::string(std::move(out));
    }
    if (name == "split") {
        SLIPSTREAM_ASSIGN_OR_RETURN(const std::string* sep, optional_string(a, 0, "sep"));
        if (sep != nullptr && sep->empty()) return Status::invalid_argument("split(): empty separator");
        const Value* max = a.get(1, "maxsplit");
        Array out;
        for (std::string& part : py_split(s, sep, max != nullptr && max->is_int() ? max->as_int() : -1))
            out.push_back(Value::string(std::move(part)));
        SLIPSTREAM_RETURN_IF_ERROR(budget.spend_items(static_cast<int64_t>(out.size())));
        return Value::array(std::move(out));
    }
    if (name == "find" || name == "count") {
        const Value* sub = a.get(0, "sub");
        if (sub == nullptr || !sub->is_string())
            return Status::invalid_argument(std::string(name) + "() takes a string");
        if (name == "find") {
            const std::size_t at = s.find(sub->as_string());
            return Value::integer(at == std::string::npos ? -1
                                                          : static_cast<int64_t>(code_points(s.substr(0, at)).size()));
        }
        if (sub->as_string().empty()) return Value::integer(static_cast<int64_t>(code_points(s).size()) + 1);
        int64_t n = 0;
        for (std::size_t at = s.find(sub->as_string()); at != std::string::npos;
             at = s.find(sub->as_string(), at + sub->as_string().size()))
            ++n;
        return Value::integer(n);
    }
    if (name == "join") {
        const Value* items = a.get(0, "iterable");
        if (items == nullptr) return Status::invalid_argument("join() takes an iterable");
        SLIPSTREAM_ASSIGN_OR_RETURN(Array parts, iterate(*items, budget));
        std::string out;
        for (std::size_t i = 0; i < parts.size(); ++i) {
            if (!parts[i].is_string()) return Status::invalid_argument("join(): sequence item is not a str");
            out += (i ? s : "") + parts[i].as_string();
        }
        SLIPSTREAM_RETURN_IF_ERROR(budget.spend_bytes(out.size()));
        return Value::string(std::move(out));
    }
    return no_method(object, name);
}

Result<Value> dict_method(const Value& object, std::string_view name, const CallArgs& a, Budget& budget) {
    const Object& o = object.as_object();
    Array out;
    if (name == "items" || name == "keys" || name == "values") {
        SLIPSTREAM_RETURN_IF_ERROR(budget.spend_items(static_cast<int64_t>(o.items.size())));
        for (const auto& [k, v] : o.items) {
            if (name == "items") out.push_back(Value::array({Value::string(k), v}));
            if (name == "keys") out.push_back(Value::string(k));
            if (name == "values") out.push_back(v);
        }
        return Value::array(std::move(out));
    }
    if (name == "get") {
        const Value* key = a.get(0, "key");
        if (key == nullptr) return Status::invalid_argument("get() takes a key");
        const Value* found = key->is_string() ? o.find(key->as_string()) : nullptr;
        if (found != nullptr) return *found;
        const Value* def = a.get(1, "default");
        return def != nullptr ? *def : Value::none();
    }
    // loop.cycle('odd', 'even')
    if (name == "cycle" && o.find("index0") != nullptr && !a.positional.empty()) {
        const int64_t i = o.find("index0")->as_int();
        return a.positional[static_cast<std::size_t>(i % static_cast<int64_t>(a.positional.size()))];
    }
    return no_method(object, name);
}

}  // namespace

Result<Value> call_method(const Value& object, std::string_view name, const CallArgs& args, Budget& budget) {
    if (object.is_string()) return string_method(object, name, args, budget);
    if (object.is_object() && !object.as_object().is_namespace) return dict_method(object, name, args, budget);
    if (object.is_undefined()) return Status::invalid_argument("'" + object.undefined_name() + "' is undefined");
    return no_method(object, name);
}

}  // namespace slipstream::agent::infer::jinja
