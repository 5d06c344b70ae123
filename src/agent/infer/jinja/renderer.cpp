// Renderer: statements (output, if, for with loop, set, macro, break/continue) and variable scopes.
#include "agent/infer/jinja/renderer.h"

#include <algorithm>

#include "agent/infer/jinja/limits.h"

namespace slipstream::agent::infer::jinja {

using base::Result;
using base::Status;

namespace {

Status at_line(int line, Status s) {
    if (s.is_ok() || s.message().starts_with("template line ")) return s;
    const std::string msg = "template line " + std::to_string(line) + ": " + s.message();
    return s.is_out_of_range() ? Status::out_of_range(msg) : Status::invalid_argument(msg);
}

Value loop_object(std::size_t i, const Array& items) {
    const auto n = static_cast<int64_t>(items.size());
    const auto k = static_cast<int64_t>(i);
    Object o;
    o.items = {{"index0", Value::integer(k)},
               {"index", Value::integer(k + 1)},
               {"revindex0", Value::integer(n - k - 1)},
               {"revindex", Value::integer(n - k)},
               {"first", Value::boolean(k == 0)},
               {"last", Value::boolean(k == n - 1)},
               {"length", Value::integer(n)},
               {"depth", Value::integer(1)},
               {"depth0", Value::integer(0)},
               {"previtem", i > 0 ? items[i - 1] : Value::undefined("previtem")},
               {"nextitem", i + 1 < items.size() ? items[i + 1] : Value::undefined("nextitem")}};
    return Value::object(std::move(o));
}

}  // namespace

Result<std::string> Renderer::render(const NodeList& nodes) {
    std::string out;
    Flow flow = Flow::kNormal;
    SLIPSTREAM_RETURN_IF_ERROR(exec(nodes, out, flow));
    return out;
}

Status Renderer::check_depth(int line) {
    if (++steps_ > kMaxRenderSteps) {
        return Status::out_of_range("template line " + std::to_string(line) + ": rendering took more than " +
                                    "kMaxRenderSteps (" + std::to_string(kMaxRenderSteps) + " evaluations)");
    }
    if (depth_ <= kMaxDepth) return Status::ok();
    return Status::out_of_range("template line " + std::to_string(line) + ": rendering nested deeper than kMaxDepth (" +
                                std::to_string(kMaxDepth) + ")");
}

Status Renderer::append(std::string& out, std::string_view s) {
    if (out.size() + s.size() > kMaxOutputBytes) {
        return Status::out_of_range("template output over kMaxOutputBytes (" + std::to_string(kMaxOutputBytes) +
                                    " bytes)");
    }
    SLIPSTREAM_RETURN_IF_ERROR(budget_.spend_bytes(s.size()));
    out.append(s);
    return Status::ok();
}

Status Renderer::exec(const NodeList& nodes, std::string& out, Flow& flow) {
    for (const auto& n : nodes) {
        SLIPSTREAM_RETURN_IF_ERROR(exec_node(*n, out, flow));
        if (flow != Flow::kNormal) return Status::ok();
    }
    return Status::ok();
}

Status Renderer::exec_node(const Node& n, std::string& out, Flow& flow) {
    DepthGuard g(depth_);
    SLIPSTREAM_RETURN_IF_ERROR(check_depth(n.line));
    switch (n.kind) {
        case NodeKind::kText:
            return append(out, n.text);
        case NodeKind::kOutput: {
            SLIPSTREAM_ASSIGN_OR_RETURN(Value v, eval(*n.expr));
            if (v.is_string()) return append(out, v.as_string());
            return append(out, v.str());
        }
        case NodeKind::kIf: {
            SLIPSTREAM_ASSIGN_OR_RETURN(Value c, eval(*n.expr));
            return exec(c.truthy() ? n.body : n.else_body, out, flow);
        }
        case NodeKind::kFor:
            return exec_for(n, out);
        case NodeKind::kSet:
            return exec_set(n);
        case NodeKind::kMacro:
            assign(n.text, Value::callable(Callable{&n, {}}));
            return Status::ok();
        case NodeKind::kBreak:
            flow = Flow::kBreak;
            return Status::ok();
        case NodeKind::kContinue:
            flow = Flow::kContinue;
            return Status::ok();
        case NodeKind::kBlock:
            return exec(n.body, out, flow);
    }
    return Status::ok();
}

Status Renderer::exec_for(const Node& n, std::string& out) {
    SLIPSTREAM_ASSIGN_OR_RETURN(Value seq, eval(*n.expr));
    Result<Array> listed = iterate(seq, budget_);
    if (!listed.is_ok()) return at_line(n.line, listed.status());
    Array items = std::move(listed).value();
    auto bind = [&](Scope& scope, const Value& item) -> Status {
        if (n.targets.size() == 1) {
            scope.emplace_back(n.targets[0], item);
            return Status::ok();
        }
        if (!item.is_array() || item.as_array().size() != n.targets.size()) {
            return at_line(n.line, Status::invalid_argument("cannot unpack " + std::string(item.type_name()) +
                                                            " into " + std::to_string(n.targets.size()) + " names"));
        }
        for (std::size_t k = 0; k < n.targets.size(); ++k)
            scope.emplace_back(n.targets[k], item.as_array()[k]);
        return Status::ok();
    };
    if (n.filter) {  // `for x in xs if cond`: loop.* counts only the items kept
        Array kept;
        for (const Value& item : items) {
            scopes_.emplace_back();
            Status s = bind(scopes_.back(), item);
            Result<Value> keep = s.is_ok() ? eval(*n.filter) : Result<Value>(s);
            scopes_.pop_back();
            if (!keep.is_ok()) return keep.status();
            if (keep->truthy()) kept.push_back(item);
        }
        items = std::move(kept);
    }
    for (std::size_t i = 0; i < items.size(); ++i) {
        scopes_.emplace_back();
        Status s = bind(scopes_.back(), items[i]);
        if (s.is_ok()) {
            scopes_.back().emplace_back("loop", loop_object(i, items));
            Flow flow = Flow::kNormal;
            s = exec(n.body, out, flow);
            if (s.is_ok() && flow == Flow::kBreak) {
                scopes_.pop_back();
                break;
            }
        }
        scopes_.pop_back();
        SLIPSTREAM_RETURN_IF_ERROR(s);
    }
    if (items.empty()) {
        Flow flow = Flow::kNormal;
        return exec(n.else_body, out, flow);
    }
    return Status::ok();
}

Status Renderer::exec_set(const Node& n) {
    Value v;
    if (n.expr) {
        SLIPSTREAM_ASSIGN_OR_RETURN(v, eval(*n.expr));
    } else {
        std::string body;
        Flow flow = Flow::kNormal;
        SLIPSTREAM_RETURN_IF_ERROR(exec(n.body, body, flow));
        v = Value::string(std::move(body));
    }
    if (!n.text.empty()) {  // set ns.attr = v
        const Value ns = lookup(n.targets[0]);
        if (!ns.is_object() || !ns.as_object().is_namespace) {
            return at_line(n.line, Status::invalid_argument("cannot assign attribute on non-namespace object"));
        }
        if (v.has_namespace()) {
            return at_line(n.line, Status::invalid_argument("a namespace cannot be stored in a namespace"));
        }
        ns.mutable_object().set(n.text, std::move(v));
        return Status::ok();
    }
    if (n.targets.size() == 1) {
        assign(n.targets[0], std::move(v));
        return Status::ok();
    }
    if (!v.is_array() || v.as_array().size() != n.targets.size()) {
        return at_line(n.line,
                       Status::invalid_argument("cannot unpack into " + std::to_string(n.targets.size()) + " names"));
    }
    for (std::size_t k = 0; k < n.targets.size(); ++k)
        assign(n.targets[k], v.as_array()[k]);
    return Status::ok();
}

Value Renderer::lookup(const std::string& name) const {
    const std::size_t base = frames_.empty() ? 0 : frames_.back();
    for (std::size_t i = scopes_.size(); i-- > base;) {
        for (auto it = scopes_[i].rbegin(); it != scopes_[i].rend(); ++it)
            if (it->first == name) return it->second;
    }
    if (base > 0) {
        for (auto it = scopes_[0].rbegin(); it != scopes_[0].rend(); ++it)
            if (it->first == name) return it->second;
    }
    if (const Value* g = globals_.find(name); g != nullptr) return *g;
    if (name == "raise_exception" || name == "namespace" || name == "range" || name == "strftime_now" ||
        name == "dict") {
        return Value::callable(Callable{nullptr, name});
    }
    return Value::undefined(name);
}

void Renderer::assign(const std::string& name, Value v) {
    for (auto& [k, x] : scopes_.back()) {
        if (k == name) {
            x = std::move(v);
            return;
        }
    }
    scopes_.back().emplace_back(name, std::move(v));
}

Result<Value> Renderer::call_macro(const Node& m, const CallArgs& args) {
    if (args.positional.size() > m.targets.size()) {
        return Status::invalid_argument("macro '" + m.text + "' takes not more than " +
                                        std::to_string(m.targets.size()) + " arguments");
    }
    for (const auto& [k, v] : args.named) {
        if (std::find(m.targets.begin(), m.targets.end(), k) == m.targets.end()) {
            return Status::invalid_argument("macro '" + m.text + "' takes no keyword argument '" + k + "'");
        }
    }
    frames_.push_back(scopes_.size());
    scopes_.emplace_back();
    Status s;
    for (std::size_t i = 0; i < m.targets.size() && s.is_ok(); ++i) {
        const Value* given = args.get(i, m.targets[i]);
        if (given != nullptr) {
            assign(m.targets[i], *given);
        } else if (m.defaults[i]) {
            Result<Value> def = eval(*m.defaults[i]);
            if (def.is_ok()) assign(m.targets[i], std::move(def).value());
            s = def.status();
        } else {
            assign(m.targets[i], Value::undefined(m.targets[i]));
        }
    }
    std::string out;
    Flow flow = Flow::kNormal;
    if (s.is_ok()) s = exec(m.body, out, flow);
    scopes_.pop_back();
    frames_.pop_back();
    SLIPSTREAM_RETURN_IF_ERROR(s);
    return Value::string(std::move(out));
}

}  // namespace slipstream::agent::infer::jinja
