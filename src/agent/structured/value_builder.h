// ValueBuilder: the JsonStream events of one document as a json::Value tree, and snapshots of it while partial.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "agent/structured/json_stream.h"
#include "base/arena.h"
#include "json/parse.h"
#include "json/value.h"

namespace slipstream::agent::structured {

/// Builds the tree json::parse would build for the same bytes (integers, exact big integers, doubles; repeated
/// keys as ParseOptions::duplicate_keys says). Values live in the arena given. Not thread-safe.
class ValueBuilder final : public JsonEvents {
  public:
    explicit ValueBuilder(base::Arena& arena, json::DuplicateKeys duplicates = json::DuplicateKeys::kKeepLast)
        : arena_(arena), duplicates_(duplicates) {}

    base::Status begin_object() override;
    base::Status end_object() override;
    base::Status begin_array() override;
    base::Status end_array() override;
    base::Status key(std::string_view piece, bool last) override;
    base::Status string(std::string_view piece, bool last) override;
    base::Status number(std::string_view text) override;
    base::Status boolean(bool value) override;
    base::Status null() override;

    /// The document, once the stream is complete (null before).
    const json::Value* result() const { return done_ ? &root_ : nullptr; }

    /// The value so far, for a UI that renders partial output: open arrays and objects closed where they stand,
    /// an open string as far as it has come, an object member whose value has not started left out. `partial`
    /// (optional) receives the JSON pointers of the incomplete values (open containers and the open string),
    /// outermost first. Null before the first value starts. Allocates in the arena on each call.
    const json::Value* snapshot(std::vector<std::string>* partial = nullptr);

  private:
    struct Frame {
        bool object = false;
        std::vector<json::Value> items;
        std::vector<json::Member> members;
        std::string key;  // the member whose value comes next (objects)
        bool has_key = false;
    };
    base::Status add(json::Value v);
    json::Value close_frame(Frame& f);

    base::Arena& arena_;
    json::DuplicateKeys duplicates_;
    std::vector<Frame> stack_;
    std::string text_;        // the open string
    bool in_string_ = false;  // a value string is open
    json::Value root_;
    bool done_ = false;
    json::Value snapshot_root_;
};

}  // namespace slipstream::agent::structured
