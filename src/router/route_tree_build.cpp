// RouteTree construction: pattern tokenizing, edge insertion with splitting, edge tables.
#include <bit>

#include "base/assert.h"
#include "router/path_scan.h"
#include "router/route_tree.h"

namespace slipstream::server::detail {

/// A pattern token: a literal "/seg", or a parameter occupying one ("/{x}") or the rest ("/{p:path}").
struct RouteTree::Token {
    bool is_param = false;
    ParamType type = ParamType::kStr;
    std::string text;  // literal tokens only
};

RouteTree::RouteTree() {
    nodes_.emplace_back();
}

std::uint32_t RouteTree::add_node() {
    nodes_.emplace_back();
    return static_cast<std::uint32_t>(nodes_.size() - 1);
}

std::uint32_t RouteTree::new_edge(std::uint32_t label_off, std::uint32_t label_len, std::uint32_t child) {
    Edge e;
    e.label_off = label_off;
    e.label_len = label_len;
    e.child = child;
    edges_.push_back(e);
    return static_cast<std::uint32_t>(edges_.size() - 1);
}

std::vector<RouteTree::Token> RouteTree::tokenize(const RoutePattern& pattern) {
    std::vector<Token> tokens;
    for (const PatternPart& part : pattern.parts) {
        if (part.is_param) {
            // The parser guarantees a parameter right after a '/', which opened a token of its own.
            SLIPSTREAM_ASSERT(!tokens.empty() && !tokens.back().is_param && tokens.back().text == "/");
            tokens.back().is_param = true;
            tokens.back().type = part.type;
            tokens.back().text.clear();
            continue;
        }
        for (char c : part.text) {
            if (c == '/') {
                tokens.push_back(Token{false, ParamType::kStr, "/"});
            } else {
                tokens.back().text += c;  // every pattern starts with '/'
            }
        }
    }
    return tokens;
}

Terminal& RouteTree::insert(const RoutePattern& pattern) {
    std::vector<Token> tokens = tokenize(pattern);
    std::uint32_t n = 0;
    for (std::size_t i = 0; i < tokens.size();) {
        if (tokens[i].is_param) {
            n = param_child(n, tokens[i].type);
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j < tokens.size() && !tokens[j].is_param)
            ++j;
        n = insert_literals(n, tokens.data() + i, j - i);
        i = j;
    }
    if (nodes_[n].terminal == kNone) {
        terminals_.emplace_back();
        terminals_.back().routes.fill(kNone);
        nodes_[n].terminal = static_cast<std::uint32_t>(terminals_.size() - 1);
    }
    bool literal = true;
    std::string whole;
    for (const Token& t : tokens) {
        literal = literal && !t.is_param;
        whole += t.text;
    }
    if (literal) static_paths_.add(whole, nodes_[n].terminal);
    return terminals_[nodes_[n].terminal];
}

std::uint32_t RouteTree::param_child(std::uint32_t n, ParamType type) {
    auto slot_of = [&]() -> std::uint32_t& {
        return type == ParamType::kPath ? nodes_[n].path_child
                                        : nodes_[n].param_children[static_cast<std::size_t>(type)];
    };
    if (slot_of() == kNone) {
        std::uint32_t child = add_node();
        slot_of() = child;  // looked up again: add_node may have moved nodes_
        if (type != ParamType::kPath) nodes_[n].has_segment_params = true;
    }
    return slot_of();
}

std::uint32_t RouteTree::insert_literals(std::uint32_t n, const Token* tokens, std::size_t count) {
    while (count > 0) {
        std::uint32_t e = find_edge_slow(n, tokens[0].text);
        if (e == kNone) {
            auto off = static_cast<std::uint32_t>(bytes_.size());
            for (std::size_t k = 0; k < count; ++k)
                bytes_ += tokens[k].text;
            std::uint32_t child = add_node();
            add_edge(n, new_edge(off, static_cast<std::uint32_t>(bytes_.size()) - off, child));
            return child;
        }
        // Count the label's leading tokens that equal ours (at least the first).
        const Edge edge = edges_[e];
        std::string_view label = std::string_view(bytes_).substr(edge.label_off, edge.label_len);
        std::size_t pos = 0, k = 0;
        while (k < count && pos < label.size()) {
            std::size_t len = token_length(label.substr(pos));
            if (label.substr(pos, len) != tokens[k].text) break;
            pos += len;
            ++k;
        }
        if (pos < label.size()) {
            // Split: the edge keeps its first tokens (and so its table key) and leads to a new node.
            std::uint32_t mid = add_node();
            std::uint32_t tail = new_edge(edge.label_off + static_cast<std::uint32_t>(pos),
                                          edge.label_len - static_cast<std::uint32_t>(pos), edge.child);
            edges_[e].label_len = static_cast<std::uint32_t>(pos);
            edges_[e].child = mid;
            add_edge(mid, tail);
        }
        n = edges_[e].child;
        tokens += k;
        count -= k;
    }
    return n;
}

std::vector<std::uint32_t> RouteTree::edges_of(std::uint32_t n) const {
    const RouteNode& node = nodes_[n];
    std::vector<std::uint32_t> out;
    std::uint32_t slots = node.table_mask == 0 ? node.edge_count : node.table_mask + 1;
    for (std::uint32_t i = 0; i < slots; ++i) {
        if (slots_[node.slots_off + i] != kNone) out.push_back(slots_[node.slots_off + i]);
    }
    return out;
}

std::uint32_t RouteTree::find_edge_slow(std::uint32_t n, std::string_view first_token) const {
    for (std::uint32_t e : edges_of(n)) {
        std::string_view label = std::string_view(bytes_).substr(edges_[e].label_off, edges_[e].label_len);
        if (label.substr(0, token_length(label)) == first_token) return e;
    }
    return kNone;
}

void RouteTree::add_edge(std::uint32_t n, std::uint32_t e) {
    auto place = [this](std::uint32_t off, std::uint32_t mask, std::uint32_t edge) {
        std::string_view label = std::string_view(bytes_).substr(edges_[edge].label_off, edges_[edge].label_len);
        auto s = static_cast<std::uint32_t>(token_key_hash(label)) & mask;
        while (slots_[off + s] != kNone)
            s = (s + 1) & mask;
        slots_[off + s] = edge;
    };
    RouteNode& node = nodes_[n];
    // A table with room (load <= 1/2) takes the edge in place; tables double, so building is linear.
    if (node.table_mask != 0 && (node.edge_count + 1) * 2 <= node.table_mask + 1) {
        place(node.slots_off, node.table_mask, e);
        ++node.edge_count;
        return;
    }
    // Otherwise rebuild the set at the end of slots_; the old range is left unused.
    std::vector<std::uint32_t> all = edges_of(n);
    all.push_back(e);
    auto off = static_cast<std::uint32_t>(slots_.size());
    if (all.size() <= kListMax) {
        slots_.insert(slots_.end(), all.begin(), all.end());
        node.table_mask = 0;
    } else {
        auto size = static_cast<std::uint32_t>(std::bit_ceil(all.size() * 2));
        slots_.resize(slots_.size() + size, kNone);
        for (std::uint32_t edge : all)
            place(off, size - 1, edge);
        node.table_mask = size - 1;
    }
    node.slots_off = off;
    node.edge_count = static_cast<std::uint32_t>(all.size());
}

}  // namespace slipstream::server::detail
