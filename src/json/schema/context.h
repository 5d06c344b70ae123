// Context: per-validation state (error sink, instance path, dynamic scope, depth), all on the stack.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "json/schema/error_sink.h"
#include "json/value.h"

namespace slipstream::json::schema::detail {

struct Resource;

/// The instance location as a linked list through the C stack: descending costs two stores and
/// allocates nothing; it is turned into a vector only when an error is reported.
struct PathFrame {
    const PathFrame* parent;
    PathSegment segment;
};

/// The dynamic scope ($dynamicRef): schema resources entered, innermost first, on the C stack.
struct ScopeFrame {
    const Resource* resource;
    const ScopeFrame* outer;
};

class Context {
  public:
    /// Call from the frame that starts validation: stack use is measured from there.
    Context(ErrorSink* sink, std::uint32_t max_depth, std::size_t max_stack_bytes = 1 << 20)
        : sink_(sink),
          max_depth_(max_depth),
          stack_base_(reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0))),
          max_stack_bytes_(max_stack_bytes) {}

    /// The sink, or nullptr when the caller only wants a yes/no (then validators stop early).
    ErrorSink* sink() const { return sink_; }
    /// True when validation should stop at this failure: no sink, or the sink is full.
    bool stop() const { return sink_ == nullptr || sink_->full(); }

    /// Records an error at the current instance location (plus `extra`, e.g. a missing key).
    void report(const std::string& keyword_location, std::string_view type, std::string msg, const json::Value& input,
                json::Value ctx = json::Value(), const PathSegment* extra = nullptr) const;

    const PathFrame* path = nullptr;
    const ScopeFrame* scope = nullptr;
    std::uint32_t depth = 0;

    std::uint32_t max_depth() const { return max_depth_; }
    /// True when one more nested evaluation would exceed max_depth or the C stack budget.
    bool too_deep() const {
        if (depth >= max_depth_) return true;
        auto here = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
        return stack_base_ - here > max_stack_bytes_;  // stacks grow down on every target we build
    }

  private:
    friend class MuteSink;
    ErrorSink* sink_;
    std::uint32_t max_depth_;
    std::uintptr_t stack_base_;
    std::size_t max_stack_bytes_;
};

// The guards below point the Context at frames on the C stack and restore it on scope exit; g++ 12's
// -Wdangling-pointer cannot see the restore and reports a false positive.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#define SLIPSTREAM_SCHEMA_STACK_FRAMES_BEGIN \
    _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wdangling-pointer\"")
#define SLIPSTREAM_SCHEMA_STACK_FRAMES_END _Pragma("GCC diagnostic pop")
#else
#define SLIPSTREAM_SCHEMA_STACK_FRAMES_BEGIN
#define SLIPSTREAM_SCHEMA_STACK_FRAMES_END
#endif

SLIPSTREAM_SCHEMA_STACK_FRAMES_BEGIN
/// Descends into a member or item for the lifetime of the guard.
class PathGuard {
  public:
    PathGuard(Context& ctx, std::string_view key) : ctx_(ctx), frame_{ctx.path, PathSegment{key, -1}} {
        ctx.path = &frame_;
    }
    PathGuard(Context& ctx, std::uint32_t index)
        : ctx_(ctx), frame_{ctx.path, PathSegment{{}, static_cast<std::int64_t>(index)}} {
        ctx.path = &frame_;
    }
    ~PathGuard() { ctx_.path = frame_.parent; }
    PathGuard(const PathGuard&) = delete;
    PathGuard& operator=(const PathGuard&) = delete;

  private:
    Context& ctx_;
    PathFrame frame_;
};
SLIPSTREAM_SCHEMA_STACK_FRAMES_END

/// Evaluates a subschema as a yes/no question (anyOf branches, `not`, `if`, `contains`): its
/// failures are not errors of the instance.
class MuteSink {
  public:
    explicit MuteSink(Context& ctx) : ctx_(ctx), saved_(ctx.sink_) { ctx.sink_ = nullptr; }
    ~MuteSink() { ctx_.sink_ = saved_; }
    MuteSink(const MuteSink&) = delete;
    MuteSink& operator=(const MuteSink&) = delete;

  private:
    Context& ctx_;
    ErrorSink* saved_;
};

}  // namespace slipstream::json::schema::detail
