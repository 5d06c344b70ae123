// The router's radix tree over path tokens ("/seg"): literal edges compressed, parameters typed.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "router/method.h"
#include "router/route_match.h"
#include "router/route_pattern.h"
#include "router/static_path_index.h"

namespace slipstream::server::detail {

inline constexpr std::uint32_t kNone = UINT32_MAX;

/// The routes registered for one pattern shape, by method (indexes into the Router's route list).
struct Terminal {
    MethodSet methods;
    std::array<std::uint32_t, kMethodCount> routes{};
};

/// A literal edge: one or more whole tokens ("/v1/users"), keyed at its node by the first token.
struct Edge {
    std::uint32_t label_off = 0;  // in RouteTree::bytes_
    std::uint32_t label_len = 0;
    std::uint32_t child = kNone;
};

/// A tree node, small and flat: its edge set lives in RouteTree::slots_, either as a list of
/// `edge_count` edge indexes or, past kListMax edges, as an open-addressing table of
/// `table_mask + 1` slots keyed by token_key_hash() of the first token.
struct RouteNode {
    std::uint32_t slots_off = 0;
    std::uint32_t edge_count = 0;
    std::uint32_t table_mask = 0;  // 0: a plain list
    bool has_segment_params = false;
    std::uint32_t terminal = kNone;
    std::uint32_t path_child = kNone;
    std::array<std::uint32_t, kSegmentParamTypes> param_children{kNone, kNone, kNone, kNone};
};

/// What a walk found: the route index, or the methods seen on matching patterns.
struct WalkResult {
    std::uint32_t route = kNone;
    bool implicit_head = false;
    MethodSet seen;
};

/// The tree reads a path as tokens, each a '/' and the segment after it ("/users/42/" is "/users",
/// "/42", "/"). A literal edge matches whole tokens, a segment parameter one token with a non-empty
/// segment, a catch-all whatever is left after a '/'. Only the lookup is noexcept; building may throw.
class RouteTree {
  public:
    /// Nodes with up to this many literal edges scan a list; more use a hash table.
    static constexpr std::uint32_t kListMax = 4;

    RouteTree();

    /// Adds the nodes for `pattern` (if new) and returns its Terminal, created empty if needed.
    /// The reference is valid until the next insert().
    Terminal& insert(const RoutePattern& pattern);

    /// Walks `path` in priority order with backtracking; captured values go to out->params.
    /// Stops at the first matching pattern that serves `method` (HEAD also by GET).
    WalkResult walk(Method method, std::string_view path, RouteMatch* out) const noexcept;

    /// The route of the pattern without parameters equal to the whole `path` when it serves `method` (HEAD
    /// also by GET: then `implicit_head` is set), else kNone. That pattern is where walk() looks first (literal
    /// edges come first at every node), so a hit is walk()'s answer too, found with one hash probe; a miss
    /// leaves the answer to walk(). Inline: most requests need nothing else.
    std::uint32_t find_static(Method method, std::string_view path, bool& implicit_head) const noexcept {
        const std::uint32_t terminal = static_paths_.find(path);
        if (terminal == StaticPathIndex::kAbsent) return kNone;
        const Terminal& t = terminals_[terminal];
        if (t.methods.contains(method)) return t.routes[static_cast<std::size_t>(method)];
        if (method != Method::kHead || !t.methods.contains(Method::kGet)) return kNone;
        implicit_head = true;
        return t.routes[static_cast<std::size_t>(Method::kGet)];
    }

  private:
    struct Walk;
    struct Token;

    // Building (route_tree_build.cpp).
    static std::vector<Token> tokenize(const RoutePattern& pattern);
    std::uint32_t insert_literals(std::uint32_t node, const Token* tokens, std::size_t count);
    std::uint32_t param_child(std::uint32_t node, ParamType type);
    std::uint32_t find_edge_slow(std::uint32_t node, std::string_view first_token) const;
    std::vector<std::uint32_t> edges_of(std::uint32_t node) const;
    void add_edge(std::uint32_t node, std::uint32_t edge);
    std::uint32_t new_edge(std::uint32_t label_off, std::uint32_t label_len, std::uint32_t child);
    std::uint32_t add_node();

    // Lookup (route_tree.cpp).
    const Edge* find_edge(const RouteNode& node, std::string_view rest) const noexcept;
    bool visit(std::uint32_t node, std::string_view rest, Walk& w) const noexcept;
    bool visit_segment_params(const RouteNode& node, std::string_view rest, Walk& w) const noexcept;
    bool accept_path(const RouteNode& node, std::string_view rest, Walk& w) const noexcept;
    bool accept(std::uint32_t terminal, Walk& w) const noexcept;

    std::vector<RouteNode> nodes_;  // nodes_[0] is the root
    std::vector<Edge> edges_;
    std::vector<Terminal> terminals_;
    std::vector<std::uint32_t> slots_;  // edge lists and tables; a rebuilt set moves to the end
    std::string bytes_;                 // edge labels; a split only shortens a range, so bytes never move
    StaticPathIndex static_paths_;      // the patterns without parameters, whole, to their terminal
};

}  // namespace slipstream::server::detail
