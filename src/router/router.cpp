// Router registration (validation, conflicts) and the match() entry point.
#include "router/router.h"

#include <stdexcept>
#include <string>

namespace slipstream::server {

void Router::add(Method method, std::string_view pattern, RouteId id) {
    RoutePattern parsed = parse_route_pattern(pattern);
    if (method == Method::kOther) {
        throw std::invalid_argument("cannot register route \"" + parsed.text + "\" for an unknown method");
    }
    // An equivalent pattern reaches the same nodes, so a conflict adds no node before throwing.
    detail::Terminal& terminal = tree_.insert(parsed);
    auto m = static_cast<std::size_t>(method);
    if (terminal.methods.contains(method)) {
        const RouteInfo& other = routes_[terminal.routes[m]];
        throw std::invalid_argument("route conflict: " + std::string(method_name(method)) + " " + parsed.text +
                                    " is equivalent to the registered " + std::string(method_name(method)) + " " +
                                    other.pattern.text);
    }
    terminal.methods.add(method);
    terminal.routes[m] = static_cast<std::uint32_t>(routes_.size());
    first_name_.push_back(static_cast<std::uint32_t>(name_ranges_.size()));
    for (const PatternPart& part : parsed.parts) {
        if (!part.is_param) continue;
        name_ranges_.push_back(
            NameRange{static_cast<std::uint32_t>(names_.size()), static_cast<std::uint32_t>(part.text.size())});
        names_ += part.text;
    }
    routes_.push_back(RouteInfo{method, std::move(parsed), id});
}

MatchOutcome Router::match(Method method, std::string_view path, RouteMatch* out) const noexcept {
    // An exact static path that serves the method: one probe, no walk (walk() would find the same route first).
    detail::WalkResult r;
    r.route = tree_.find_static(method, path, r.implicit_head);
    if (r.route != detail::kNone) {
        out->param_count = 0;
    } else {
        r = tree_.walk(method, path, out);
    }
    if (r.route != detail::kNone) {
        const RouteInfo& route = routes_[r.route];
        out->route_id = route.id;
        out->pattern = route.pattern.text;
        out->implicit_head = r.implicit_head;
        out->allowed = MethodSet();
        out->declared = MethodSet();
        const NameRange* names = name_ranges_.data() + first_name_[r.route];
        for (std::size_t k = 0; k < out->param_count; ++k) {
            out->params[k].name = std::string_view(names_.data() + names[k].off, names[k].len);
        }
        return MatchOutcome::kFound;
    }
    out->route_id = 0;
    out->pattern = {};
    out->implicit_head = false;
    out->allowed = MethodSet();
    out->declared = r.seen;
    if (r.seen.empty()) return MatchOutcome::kNotFound;
    MethodSet allowed = r.seen;
    if (allowed.contains(Method::kGet)) allowed.add(Method::kHead);
    allowed.add(Method::kOptions);
    out->allowed = allowed;
    return method == Method::kOptions ? MatchOutcome::kOptions : MatchOutcome::kMethodNotAllowed;
}

}  // namespace slipstream::server
