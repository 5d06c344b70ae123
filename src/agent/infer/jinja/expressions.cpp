// Renderer's expressions: names, attributes and items, slices, calls, filters, tests, operators (Python semantics).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>

#include "agent/infer/jinja/limits.h"
#include "agent/infer/jinja/renderer.h"

namespace slipstream::agent::infer::jinja {

using base::Result;
using base::Status;

namespace {

Status at_line(int line, Status s) {
    if (s.is_ok() || s.message().starts_with("template line ")) return s;
    const std::string msg = "template line " + std::to_string(line) + ": " + s.message();
    return s.is_out_of_range() ? Status::out_of_range(msg) : Status::invalid_argument(msg);
}

Status undefined_error(const Value& v) {
    return Status::invalid_argument("'" + v.undefined_name() + "' is undefined");
}

Status operand_error(const std::string& op, const Value& a, const Value& b) {
    if (a.is_undefined()) return undefined_error(a);
    if (b.is_undefined()) return undefined_error(b);
    return Status::invalid_argument("unsupported operand type(s) for " + op + ": '" + std::string(a.type_name()) +
                                    "' and '" + std::string(b.type_name()) + "'");
}

bool is_dict_method(const std::string& name) {
    return name == "items" || name == "keys" || name == "values" || name == "get";
}

// Python's slice indices for a sequence of `n` items: start, stop, step after clamping.
Result<std::vector<std::size_t>> slice_indices(int64_t n, const Value* start, const Value* stop, const Value* step) {
    int64_t st = 1;
    if (step != nullptr && !step->is_none()) {
        if (!step->is_int()) return Status::invalid_argument("slice indices must be integers or None");
        st = step->as_int();
        if (st == 0) return Status::invalid_argument("slice step cannot be zero");
    }
    auto bound = [&](const Value* v, int64_t def) -> Result<int64_t> {
        if (v == nullptr || v->is_none()) return def;
        if (!v->is_int() && !v->is_bool()) return Status::invalid_argument("slice indices must be integers or None");
        int64_t i = v->as_int();
        if (i < 0) i += n;
        if (st > 0) return std::clamp<int64_t>(i, 0, n);
        return std::clamp<int64_t>(i, -1, n - 1);
    };
    SLIPSTREAM_ASSIGN_OR_RETURN(int64_t b, bound(start, st > 0 ? 0 : n - 1));
    SLIPSTREAM_ASSIGN_OR_RETURN(int64_t e, bound(stop, st > 0 ? n : -1));
    std::vector<std::size_t> out;
    for (int64_t i = b; st > 0 ? i < e : i > e; i += st)
        out.push_back(static_cast<std::size_t>(i));
    return out;
}

}  // namespace

Result<Value> Renderer::eval(const Expr& e) {
    DepthGuard g(depth_);
    SLIPSTREAM_RETURN_IF_ERROR(check_depth(e.line));
    Result<Value> r = eval_inner(e);
    if (!r.is_ok()) return at_line(e.line, r.status());
    // Every value an expression makes passes here: none nests deep enough to recurse far when freed or printed.
    if (r->depth() > static_cast<uint32_t>(kMaxDepth)) {
        return Status::out_of_range("template line " + std::to_string(e.line) +
                                    ": a list or dict nested deeper than kMaxDepth (" + std::to_string(kMaxDepth) +
                                    ")");
    }
    return r;
}

Result<Value> Renderer::eval_inner(const Expr& e) {
    switch (e.kind) {
        case ExprKind::kLiteral:
            return e.literal;
        case ExprKind::kName:
            return lookup(e.name);
        case ExprKind::kList:
        case ExprKind::kDict:
            return eval_literal_container(e);
        case ExprKind::kAttr: {
            SLIPSTREAM_ASSIGN_OR_RETURN(Value object, eval(*e.args[0]));
            return eval_attr(object, e.name);
        }
        case ExprKind::kItem: {
            SLIPSTREAM_ASSIGN_OR_RETURN(Value object, eval(*e.args[0]));
            SLIPSTREAM_ASSIGN_OR_RETURN(Value key, eval(*e.args[1]));
            return eval_item(object, key);
        }
        case ExprKind::kSlice:
            return eval_slice(e);
        case ExprKind::kCall:
            return eval_call(e);
        case ExprKind::kFilter: {
            SLIPSTREAM_ASSIGN_OR_RETURN(Value subject, eval(*e.args[0]));
            SLIPSTREAM_ASSIGN_OR_RETURN(CallArgs args, eval_args(e, 1));
            return apply_filter(e.name, subject, args, budget_);
        }
        case ExprKind::kTest: {
            SLIPSTREAM_ASSIGN_OR_RETURN(Value subject, eval(*e.args[0]));
            SLIPSTREAM_ASSIGN_OR_RETURN(CallArgs args, eval_args(e, 1));
            SLIPSTREAM_ASSIGN_OR_RETURN(bool yes, apply_test(e.name, subject, args));
            return Value::boolean(yes != e.negated);
        }
        case ExprKind::kUnary: {
            SLIPSTREAM_ASSIGN_OR_RETURN(Value v, eval(*e.args[0]));
            if (e.name == "not") return Value::boolean(!v.truthy());
            if (!v.is_number()) return Status::invalid_argument("bad operand type for unary " + e.name);
            if (e.name == "+") return v.is_float() ? v : Value::integer(v.as_int());
            if (v.is_float()) return Value::number(-v.as_double());
            if (v.as_int() == INT64_MIN) return Status::out_of_range("integer overflow");
            return Value::integer(-v.as_int());
        }
        case ExprKind::kBinary:
            return eval_binary(e);
        case ExprKind::kCompare:
            return eval_compare(e);
        case ExprKind::kConditional: {
            SLIPSTREAM_ASSIGN_OR_RETURN(Value c, eval(*e.args[1]));
            if (c.truthy()) return eval(*e.args[0]);
            if (e.args[2]) return eval(*e.args[2]);
            return Value::undefined("else");
        }
    }
    return Status::internal("unknown expression");
}

Result<Value> Renderer::eval_literal_container(const Expr& e) {
    SLIPSTREAM_RETURN_IF_ERROR(budget_.spend_items(static_cast<int64_t>(e.args.size())));
    if (e.kind == ExprKind::kList) {
        Array items;
        for (const auto& a : e.args) {
            SLIPSTREAM_ASSIGN_OR_RETURN(Value v, eval(*a));
            items.push_back(std::move(v));
        }
        return Value::array(std::move(items));
    }
    Object o;
    for (std::size_t i = 0; i + 1 < e.args.size(); i += 2) {
        SLIPSTREAM_ASSIGN_OR_RETURN(Value k, eval(*e.args[i]));
        SLIPSTREAM_ASSIGN_OR_RETURN(Value v, eval(*e.args[i + 1]));
        if (!k.is_string()) return Status::invalid_argument("dict keys must be strings");
        o.set(k.as_string(), std::move(v));
    }
    return Value::object(std::move(o));
}

// Jinja's getattr: a dict's item (a missing one is undefined); undefined itself cannot be looked into.
Result<Value> Renderer::eval_attr(const Value& object, const std::string& name) {
    if (object.is_undefined()) return undefined_error(object);
    if (object.is_object()) {
        const Value* v = object.as_object().find(name);
        if (v != nullptr) return *v;
        return Value::undefined(name);
    }
    return Value::undefined(name);
}

Result<Value> Renderer::eval_item(const Value& object, const Value& key) {
    if (object.is_undefined()) return undefined_error(object);
    if (object.is_object()) {
        if (!key.is_string()) return Value::undefined(key.str());
        return eval_attr(object, key.as_string());
    }
    if ((object.is_array() || object.is_string()) && (key.is_int() || key.is_bool())) {
        const std::vector<std::string_view> cps =
            object.is_string() ? code_points(object.as_string()) : std::vector<std::string_view>();
        const auto n = static_cast<int64_t>(object.is_array() ? object.as_array().size() : cps.size());
        int64_t i = key.as_int();
        if (i < 0) i += n;
        if (i < 0 || i >= n) return Value::undefined(key.str());
        if (object.is_array()) return object.as_array()[static_cast<std::size_t>(i)];
        return Value::string(std::string(cps[static_cast<std::size_t>(i)]));
    }
    if (key.is_string()) return eval_attr(object, key.as_string());
    return Value::undefined(key.str());
}

Result<Value> Renderer::eval_slice(const Expr& e) {
    SLIPSTREAM_ASSIGN_OR_RETURN(Value object, eval(*e.args[0]));
    Value bounds[3];
    for (int i = 0; i < 3; ++i) {
        if (e.args[i + 1]) {
            SLIPSTREAM_ASSIGN_OR_RETURN(bounds[i], eval(*e.args[i + 1]));
        }
    }
    auto ptr = [&](int i) { return e.args[i + 1] ? &bounds[i] : nullptr; };
    if (object.is_undefined()) return undefined_error(object);
    if (object.is_array()) {
        const Array& a = object.as_array();
        SLIPSTREAM_ASSIGN_OR_RETURN(auto idx, slice_indices(static_cast<int64_t>(a.size()), ptr(0), ptr(1), ptr(2)));
        SLIPSTREAM_RETURN_IF_ERROR(budget_.spend_items(static_cast<int64_t>(idx.size())));
        Array out;
        for (std::size_t i : idx)
            out.push_back(a[i]);
        return Value::array(std::move(out));
    }
    if (object.is_string()) {
        const std::vector<std::string_view> cps = code_points(object.as_string());
        SLIPSTREAM_ASSIGN_OR_RETURN(auto idx, slice_indices(static_cast<int64_t>(cps.size()), ptr(0), ptr(1), ptr(2)));
        std::string out;
        for (std::size_t i : idx)
            out += cps[i];
        SLIPSTREAM_RETURN_IF_ERROR(budget_.spend_bytes(out.size()));
        return Value::string(std::move(out));
    }
    return Status::invalid_argument("'" + std::string(object.type_name()) + "' object is not subscriptable");
}

Result<CallArgs> Renderer::eval_args(const Expr& e, std::size_t first) {
    CallArgs args;
    for (std::size_t i = first; i < e.args.size(); ++i) {
        SLIPSTREAM_ASSIGN_OR_RETURN(Value v, eval(*e.args[i]));
        args.positional.push_back(std::move(v));
    }
    for (std::size_t i = 0; i < e.kwargs.size(); ++i) {
        SLIPSTREAM_ASSIGN_OR_RETURN(Value v, eval(*e.kwargs[i]));
        args.named.emplace_back(e.kwarg_names[i], std::move(v));
    }
    return args;
}

Result<Value> Renderer::eval_call(const Expr& e) {
    const Expr& callee = *e.args[0];
    SLIPSTREAM_ASSIGN_OR_RETURN(CallArgs args, eval_args(e, 1));
    Value fn;
    if (callee.kind == ExprKind::kAttr) {  // a method, unless a dict holds a callable under that name
        SLIPSTREAM_ASSIGN_OR_RETURN(Value object, eval(*callee.args[0]));
        const Value* held =
            object.is_object() && !is_dict_method(callee.name) ? object.as_object().find(callee.name) : nullptr;
        if (held == nullptr || !held->is_callable()) return call_method(object, callee.name, args, budget_);
        fn = *held;
    } else {
        SLIPSTREAM_ASSIGN_OR_RETURN(fn, eval(callee));
    }
    if (fn.is_undefined()) return undefined_error(fn);
    if (!fn.is_callable()) return Status::invalid_argument("'" + std::string(fn.type_name()) + "' is not callable");
    if (fn.as_callable().macro != nullptr) return call_macro(*fn.as_callable().macro, args);
    return call_builtin(fn.as_callable().builtin, args);
}

Result<Value> Renderer::call_builtin(const std::string& name, const CallArgs& args) {
    if (name == "raise_exception") {
        const Value* msg = args.get(0, "message");
        return Status::invalid_argument("raise_exception: " + (msg != nullptr ? msg->str() : std::string()));
    }
    if (name == "namespace" || name == "dict") {
        Object o;
        o.is_namespace = name == "namespace";
        if (!args.positional.empty() && args.positional[0].is_object()) o.items = args.positional[0].as_object().items;
        for (const auto& [k, v] : args.named)
            o.set(k, v);
        return Value::object(std::move(o));
    }
    if (name == "range") {
        int64_t b = 0, e = 0, step = 1;
        for (const Value& v : args.positional)
            if (!v.is_int()) return Status::invalid_argument("range() takes integers");
        if (args.positional.size() == 1) e = args.positional[0].as_int();
        if (args.positional.size() >= 2) b = args.positional[0].as_int(), e = args.positional[1].as_int();
        if (args.positional.size() == 3) step = args.positional[2].as_int();
        if (args.positional.empty() || args.positional.size() > 3 || step == 0) {
            return Status::invalid_argument("range() takes 1 to 3 integers, the step not zero");
        }
        Array out;
        for (int64_t i = b; step > 0 ? i < e : i > e; i += step) {
            SLIPSTREAM_RETURN_IF_ERROR(budget_.spend_items(1));
            out.push_back(Value::integer(i));
        }
        return Value::array(std::move(out));
    }
    // strftime_now(format): local time now, as transformers' datetime.now().strftime(format).
    const Value* fmt = args.get(0, "format");
    if (fmt == nullptr || !fmt->is_string()) return Status::invalid_argument("strftime_now() takes a format string");
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    localtime_r(&now, &tm);
    char buf[256];
    const std::size_t n = std::strftime(buf, sizeof buf, fmt->as_string().c_str(), &tm);
    return Value::string(std::string(buf, n));
}

Result<Value> Renderer::eval_binary(const Expr& e) {
    SLIPSTREAM_ASSIGN_OR_RETURN(Value a, eval(*e.args[0]));
    if (e.name == "and") return a.truthy() ? eval(*e.args[1]) : a;
    if (e.name == "or") return a.truthy() ? a : eval(*e.args[1]);
    SLIPSTREAM_ASSIGN_OR_RETURN(Value b, eval(*e.args[1]));
    if (e.name == "~") {
        std::string s = a.str() + b.str();
        SLIPSTREAM_RETURN_IF_ERROR(budget_.spend_bytes(s.size()));
        return Value::string(std::move(s));
    }
    return arithmetic(e.name, a, b);
}

Result<Value> Renderer::arithmetic(const std::string& op, const Value& a, const Value& b) {
    if (op == "+" && a.is_string() && b.is_string()) {
        SLIPSTREAM_RETURN_IF_ERROR(budget_.spend_bytes(a.as_string().size() + b.as_string().size()));
        return Value::string(a.as_string() + b.as_string());
    }
    if (op == "+" && a.is_array() && b.is_array()) {
        Array out = a.as_array();
        SLIPSTREAM_RETURN_IF_ERROR(budget_.spend_items(static_cast<int64_t>(out.size() + b.as_array().size())));
        out.insert(out.end(), b.as_array().begin(), b.as_array().end());
        return Value::array(std::move(out));
    }
    if (op == "*" && (a.is_string() || a.is_array() || b.is_string() || b.is_array())) {
        const Value& seq = a.is_string() || a.is_array() ? a : b;
        const Value& count = &seq == &a ? b : a;
        if (!count.is_int() && !count.is_bool()) return operand_error(op, a, b);
        // An empty sequence repeats to nothing, however many times (and without looping that many times).
        const bool empty = seq.is_string() ? seq.as_string().empty() : seq.as_array().empty();
        const int64_t n = empty ? 0 : std::max<int64_t>(0, count.as_int());
        if (seq.is_string()) {
            const auto bytes = static_cast<double>(seq.as_string().size()) * static_cast<double>(n);
            SLIPSTREAM_RETURN_IF_ERROR(budget_.spend_bytes(bytes > kMaxBuiltBytes ? kMaxBuiltBytes + 1 : bytes));
            std::string out;
            for (int64_t i = 0; i < n; ++i)
                out += seq.as_string();
            return Value::string(std::move(out));
        }
        const auto items = static_cast<double>(seq.as_array().size()) * static_cast<double>(n);
        SLIPSTREAM_RETURN_IF_ERROR(
            budget_.spend_items(items > kMaxLoopIterations ? kMaxLoopIterations + 1 : static_cast<int64_t>(items)));
        Array out;
        for (int64_t i = 0; i < n; ++i)
            out.insert(out.end(), seq.as_array().begin(), seq.as_array().end());
        return Value::array(std::move(out));
    }
    if (!a.is_number() || !b.is_number()) return operand_error(op, a, b);
    if (op == "/") {
        if (b.as_double() == 0) return Status::invalid_argument("division by zero");
        return Value::number(a.as_double() / b.as_double());
    }
    if (a.is_float() || b.is_float() || (op == "**" && b.as_int() < 0)) {
        const double x = a.as_double(), y = b.as_double();
        if ((op == "//" || op == "%") && y == 0) return Status::invalid_argument("float division by zero");
        if (op == "+") return Value::number(x + y);
        if (op == "-") return Value::number(x - y);
        if (op == "*") return Value::number(x * y);
        if (op == "//") return Value::number(std::floor(x / y));
        if (op == "%") return Value::number(x - y * std::floor(x / y));
        return Value::number(std::pow(x, y));
    }
    const int64_t x = a.as_int(), y = b.as_int();
    int64_t r = 0;
    bool overflow = false;
    if (op == "+") {
        overflow = __builtin_add_overflow(x, y, &r);
    } else if (op == "-") {
        overflow = __builtin_sub_overflow(x, y, &r);
    } else if (op == "*") {
        overflow = __builtin_mul_overflow(x, y, &r);
    } else if (op == "//" || op == "%") {
        if (y == 0) return Status::invalid_argument("integer division or modulo by zero");
        if (x == INT64_MIN && y == -1) return Status::out_of_range("integer overflow");
        int64_t q = x / y, m = x % y;
        if (m != 0 && ((m < 0) != (y < 0))) --q, m += y;
        r = op == "//" ? q : m;
    } else {  // **
        r = 1;
        int64_t base = x;
        for (int64_t n = y; n > 0 && !overflow; n >>= 1) {  // by squaring: a huge exponent costs 63 steps
            if (n & 1) overflow = __builtin_mul_overflow(r, base, &r);
            if (n > 1 && !overflow) overflow = __builtin_mul_overflow(base, base, &base);
        }
    }
    if (overflow) return Status::out_of_range("integer overflow");
    return Value::integer(r);
}

Result<Value> Renderer::eval_compare(const Expr& e) {
    SLIPSTREAM_ASSIGN_OR_RETURN(Value left, eval(*e.args[0]));
    for (std::size_t i = 0; i < e.ops.size(); ++i) {
        SLIPSTREAM_ASSIGN_OR_RETURN(Value right, eval(*e.args[i + 1]));
        const std::string& op = e.ops[i];
        bool yes;
        if (op == "==" || op == "!=") {
            if (left.is_array() || right.is_array()) {
                SLIPSTREAM_RETURN_IF_ERROR(budget_.spend_items(
                    static_cast<int64_t>(left.is_array() ? left.as_array().size() : right.as_array().size())));
            }
            yes = left.equals(right) == (op == "==");
        } else if (op == "in" || op == "not in") {
            SLIPSTREAM_ASSIGN_OR_RETURN(bool in, contains(right, left, budget_));
            yes = in == (op == "in");
        } else {
            int c;
            if (left.is_number() && right.is_number()) {
                const double x = left.as_double(), y = right.as_double();
                c = x < y ? -1 : x > y ? 1 : 0;
            } else if (left.is_string() && right.is_string()) {
                c = left.as_string().compare(right.as_string());
            } else {
                if (left.is_undefined() || right.is_undefined()) {
                    return undefined_error(left.is_undefined() ? left : right);
                }
                return Status::invalid_argument("'" + op + "' not supported between instances of '" +
                                                std::string(left.type_name()) + "' and '" +
                                                std::string(right.type_name()) + "'");
            }
            yes = op == "<" ? c < 0 : op == "<=" ? c <= 0 : op == ">" ? c > 0 : c >= 0;
        }
        if (!yes) return Value::boolean(false);
        left = std::move(right);
    }
    return Value::boolean(true);
}

}  // namespace slipstream::agent::infer::jinja
