// Limits that bound what a hostile chat template (it comes from a model file) can cost to parse and render.
#pragma once

#include <cstddef>
#include <cstdint>

namespace slipstream::agent::infer::jinja {

/// Template source size; real chat templates are under 20 KiB.
inline constexpr std::size_t kMaxTemplateBytes = 256 * 1024;
/// Nesting of blocks and expressions while parsing, and of expressions, blocks and macro calls while rendering;
/// keeps the recursion of both far inside any thread's stack.
inline constexpr int kMaxDepth = 128;
/// Bytes of rendered output, and of any one string or JSON text built on the way.
inline constexpr std::size_t kMaxOutputBytes = 16 * 1024 * 1024;
/// Bytes of all the strings built in one render together (concatenations, filters, output): bounds the time a
/// template can spend copying text.
inline constexpr std::size_t kMaxBuiltBytes = 256 * 1024 * 1024;
/// Loop iterations in one render, all loops together and the list elements built by
/// operators and filters.
inline constexpr int64_t kMaxLoopIterations = 1'000'000;
/// Statements executed and expressions evaluated in one render: bounds the time of a large loop body run many
/// times (a real chat template takes some thousands per message).
inline constexpr int64_t kMaxRenderSteps = 20'000'000;

}  // namespace slipstream::agent::infer::jinja
