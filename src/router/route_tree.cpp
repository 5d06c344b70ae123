// RouteTree lookup: the backtracking walk over tokens, in priority order, allocation-free.
#include "router/route_tree.h"

#include "base/assert.h"
#include "router/path_scan.h"

namespace slipstream::server::detail {

struct RouteTree::Walk {
    Method method;
    RouteMatch* out;
    std::size_t depth;
    WalkResult result;
};

WalkResult RouteTree::walk(Method method, std::string_view path, RouteMatch* out) const noexcept {
    Walk w{method, out, 0, WalkResult{}};
    // Every pattern starts with '/', so a path that does not matches nothing ("*", "").
    if (!path.empty() && path[0] == '/') visit(0, path, w);
    out->param_count = w.depth;
    return w.result;
}

bool RouteTree::accept(std::uint32_t terminal, Walk& w) const noexcept {
    const Terminal& t = terminals_[terminal];
    if (t.methods.contains(w.method)) {
        w.result.route = t.routes[static_cast<std::size_t>(w.method)];
        return true;
    }
    if (w.method == Method::kHead && t.methods.contains(Method::kGet)) {
        w.result.route = t.routes[static_cast<std::size_t>(Method::kGet)];
        w.result.implicit_head = true;
        return true;
    }
    w.result.seen |= t.methods;
    return false;
}

// The literal edge whose whole label starts `rest` and ends at a token boundary; nullptr if none.
// Labels at one node differ in their first token, so at most one can match.
inline const Edge* RouteTree::find_edge(const RouteNode& node, std::string_view rest) const noexcept {
    const std::uint32_t* slots = slots_.data() + node.slots_off;
    auto matches = [&](const Edge& e) {
        // Both start with '/'.
        return e.label_len <= rest.size() &&
               bytes_equal(rest.data() + 1, bytes_.data() + e.label_off + 1, e.label_len - 1) &&
               (e.label_len == rest.size() || rest[e.label_len] == '/');
    };
    if (node.table_mask == 0) {
        for (std::uint32_t i = 0; i < node.edge_count; ++i) {
            if (matches(edges_[slots[i]])) return &edges_[slots[i]];
        }
        return nullptr;
    }
    // The table is at most half full, so the probe ends at an empty slot.
    for (auto s = static_cast<std::uint32_t>(token_key_hash(rest)) & node.table_mask;; s = (s + 1) & node.table_mask) {
        if (slots[s] == kNone) return nullptr;
        if (matches(edges_[slots[s]])) return &edges_[slots[s]];
    }
}

// ~43 ns per static and ~65 ns per parameterized hit at 500 routes (router_bench; see Router::match).
// Priority at each node: end of path, literal edge, int, float, uuid, str parameters, catch-all.
// Nodes without parameters are no backtracking point, so the walk loops through them instead of
// recursing; recursion depth is bounded by the tree (the registered patterns), never by the path.
// Invariant: rest is empty or starts with '/'.
bool RouteTree::visit(std::uint32_t n, std::string_view rest, Walk& w) const noexcept {
    for (;;) {
        const RouteNode& node = nodes_[n];
        if (rest.empty()) return node.terminal != kNone && accept(node.terminal, w);
        const Edge* e = node.edge_count != 0 ? find_edge(node, rest) : nullptr;
        if (!node.has_segment_params && node.path_child == kNone) {
            if (e == nullptr) return false;
            rest.remove_prefix(e->label_len);
            n = e->child;
            continue;
        }
        if (e != nullptr && visit(e->child, rest.substr(e->label_len), w)) return true;
        if (node.has_segment_params && visit_segment_params(node, rest, w)) return true;
        return node.path_child != kNone && accept_path(node, rest, w);
    }
}

bool RouteTree::visit_segment_params(const RouteNode& node, std::string_view rest, Walk& w) const noexcept {
    std::size_t token_len = token_length(rest);
    if (token_len == 1) return false;  // every segment type needs at least one byte
    std::string_view seg = rest.substr(1, token_len - 1);
    std::string_view after = rest.substr(token_len);
    SLIPSTREAM_ASSERT(w.depth < kMaxParams);  // no pattern has more parameters, so no tree path does
    RouteParam& p = w.out->params[w.depth];
    for (std::size_t i = 0; i < node.param_children.size(); ++i) {
        std::uint32_t child = node.param_children[i];
        if (child == kNone) continue;
        auto type = static_cast<ParamType>(i);
        bool ok = true;
        switch (type) {
            case ParamType::kInt:
                ok = accept_int(seg, &p.int_value);
                break;
            case ParamType::kFloat:
                ok = accept_float(seg, &p.float_value);
                break;
            case ParamType::kUuid:
                ok = accept_uuid(seg);
                break;
            default:
                break;
        }
        if (!ok) continue;
        p.value = seg;
        p.type = type;
        ++w.depth;
        if (visit(child, after, w)) return true;
        --w.depth;
    }
    return false;
}

// The catch-all takes everything after the token's '/', possibly nothing.
bool RouteTree::accept_path(const RouteNode& node, std::string_view rest, Walk& w) const noexcept {
    SLIPSTREAM_ASSERT(w.depth < kMaxParams);
    RouteParam& p = w.out->params[w.depth];
    p.value = rest.substr(1);
    p.type = ParamType::kPath;
    ++w.depth;
    if (accept(nodes_[node.path_child].terminal, w)) return true;
    --w.depth;
    return false;
}

}  // namespace slipstream::server::detail
