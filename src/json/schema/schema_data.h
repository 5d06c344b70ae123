// SchemaData: everything a compiled Schema owns (document copies, nodes, resources).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "base/arena.h"
#include "json/schema/node.h"
#include "json/schema/schema.h"

namespace slipstream::json::schema::detail {

struct SchemaData {
    base::Arena arena{16 * 1024};  // copies of the root and remote documents, ctx values
    std::vector<std::unique_ptr<Node>> nodes;
    std::vector<std::unique_ptr<Resource>> resources;
    const Node* root = nullptr;
    Draft draft = Draft::kDraft2020_12;
    std::uint32_t max_depth = 256;
    std::size_t max_stack_bytes = 1 << 20;
};

}  // namespace slipstream::json::schema::detail
