// StreamValidator: a JSON document validated against a JSON Schema while it streams in, rejected at the first byte
// that proves no continuation can satisfy the schema.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "agent/structured/compiled_schema.h"
#include "agent/structured/json_stream.h"
#include "agent/structured/schema_checker.h"
#include "agent/structured/value_builder.h"
#include "base/arena.h"
#include "base/result.h"
#include "json/parse.h"
#include "json/pointer.h"
#include "json/schema/schema.h"
#include "json/value.h"

namespace slipstream::agent::structured {

/// Why a stream fails its schema: the byte offset that proved it, the instance location (a JSON pointer), the
/// schema keyword that can no longer be satisfied ("type", "enum", "maxLength", "required", ... or "json" for a
/// syntax or limit error) and a message.
struct SchemaFailure {
    std::size_t offset = 0;
    std::string pointer;
    std::string keyword;
    std::string message;
};

/// Feeds a JsonStream and checks, as the bytes arrive, the keywords whose failure a prefix can prove
/// (SchemaChecker: `type`, `enum`/`const`, `maxLength`, `additionalProperties: false`, `maxProperties`/
/// `maxItems`, `required`/`minProperties`/`minItems`/`minLength` when a value closes, `false` schemas, through
/// `properties`/`items`, local `$ref`, `allOf`, and `anyOf`/`oneOf` branches), never rejecting a document the
/// schema accepts. When the document completes, the compiled schema validates the whole value: the verdict is
/// always the whole-document validator's. `schema` is the schema document (kept by
/// reference: it must outlive this) and `compiled` its compilation. Not thread-safe.
class StreamValidator {
  public:
    StreamValidator(const json::Value& schema, json::schema::Schema compiled, json::ParseOptions options = {});
    ~StreamValidator();
    /// Parses and compiles `schema_json` (a JSON Schema document, draft 2020-12 unless its `$schema` says 7) and
    /// makes a validator that owns it. kInvalidArgument with the parser's or the compiler's message.
    static base::Result<std::unique_ptr<StreamValidator>> create(std::string_view schema_json,
                                                                 json::ParseOptions options = {});
    StreamValidator(const StreamValidator&) = delete;
    StreamValidator& operator=(const StreamValidator&) = delete;

    StreamState feed(std::string_view chunk);
    StreamState finish();
    /// kComplete only once the whole document is valid.
    StreamState state() const { return state_; }
    /// Set once state() is kInvalid.
    const SchemaFailure& failure() const { return failure_; }
    /// The value so far (ValueBuilder::snapshot); the whole document once complete.
    const json::Value* snapshot(std::vector<std::string>* partial = nullptr) { return builder_.snapshot(partial); }
    /// Also hands every accepted event to `observer` (after the validator's own builder), e.g. to keep a live copy
    /// of the value in another form. Null: none. Must outlive the validator; set before the first feed().
    void set_observer(JsonEvents* observer) { tee_.observer = observer; }
    /// The snapshot as compact JSON text appended to `out`; false (nothing appended) before the first value.
    bool snapshot_json(std::string& out, std::vector<std::string>* partial = nullptr);

  private:
    // The builder, then the observer: the events the checker accepted.
    struct Tee final : JsonEvents {
        explicit Tee(ValueBuilder& b) : builder(b) {}
        ValueBuilder& builder;
        JsonEvents* observer = nullptr;
        base::Status begin_object() override { return both(&JsonEvents::begin_object); }
        base::Status end_object() override { return both(&JsonEvents::end_object); }
        base::Status begin_array() override { return both(&JsonEvents::begin_array); }
        base::Status end_array() override { return both(&JsonEvents::end_array); }
        base::Status key(std::string_view piece, bool last) override {
            SLIPSTREAM_RETURN_IF_ERROR(builder.key(piece, last));
            return observer != nullptr ? observer->key(piece, last) : base::Status::ok();
        }
        base::Status string(std::string_view piece, bool last) override {
            SLIPSTREAM_RETURN_IF_ERROR(builder.string(piece, last));
            return observer != nullptr ? observer->string(piece, last) : base::Status::ok();
        }
        base::Status number(std::string_view text) override {
            SLIPSTREAM_RETURN_IF_ERROR(builder.number(text));
            return observer != nullptr ? observer->number(text) : base::Status::ok();
        }
        base::Status boolean(bool value) override {
            SLIPSTREAM_RETURN_IF_ERROR(builder.boolean(value));
            return observer != nullptr ? observer->boolean(value) : base::Status::ok();
        }
        base::Status null() override { return both(&JsonEvents::null); }
        base::Status both(base::Status (JsonEvents::*event)()) {
            SLIPSTREAM_RETURN_IF_ERROR((builder.*event)());
            return observer != nullptr ? (observer->*event)() : base::Status::ok();
        }
    };
    StreamState settle(StreamState s);

    std::shared_ptr<const CompiledSchema> owned_;  // create(): the schema document (destroyed last)
    base::Arena arena_;
    json::schema::Schema compiled_;
    ValueBuilder builder_;
    Tee tee_{builder_};
    std::unique_ptr<SchemaChecker> checker_;
    JsonStream stream_;
    SchemaFailure failure_;
    StreamState state_ = StreamState::kPartial;
};

}  // namespace slipstream::agent::structured
