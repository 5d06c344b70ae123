// JSON Schema (2020-12 and draft-07) compiled once into an immutable tree of validator nodes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "json/schema/error_sink.h"
#include "json/schema/schema_error.h"
#include "json/value.h"

namespace slipstream::json::schema {

enum class Draft : std::uint8_t { kDraft7, kDraft2020_12 };

/// Maps an absolute URI (no fragment) to the JSON text of the document it names, or nullopt when
/// unknown. Called only during compile(), on the compiling thread. Never does network access
/// unless the application's callback does.
using Resolver = std::function<std::optional<std::string>(std::string_view uri)>;

struct CompileOptions {
    /// The draft used when the root schema has no `$schema`.
    Draft default_draft = Draft::kDraft2020_12;
    /// Treat `format` as an assertion (date, time, date-time, duration, email, hostname, ipv4,
    /// ipv6, uri, uri-reference, uuid, regex, json-pointer). Off = annotation only, as the
    /// specification's default; a metaschema with the format-assertion vocabulary turns it on.
    bool format_assertion = false;
    /// Retrieval URI of the root document (base for relative `$id`/`$ref`); may be empty.
    std::string base_uri;
    /// Fetches remote `$ref` targets. The 2020-12 and draft-07 metaschemas are built in.
    Resolver resolver;
    /// Nested schema evaluations allowed per validation (guards cyclic `$ref`s).
    std::uint32_t max_depth = 256;
    /// pydantic's int from a float (Python lax mode): "integer" takes an integral double only inside int64
    /// (|x| < 2^63); a larger one fails with "int_parsing_size", as pydantic's int(1e30) does. Off: JSON Schema's
    /// rule (any integral number is an integer). Integer literals of any size are integers either way.
    bool pydantic_int_from_float = false;
    /// C stack one validation may use before it fails with "recursion_loop", whatever max_depth
    /// says. Keep it well below the smallest stack of a thread that validates.
    std::size_t max_stack_bytes = 1 << 20;
};

namespace detail {
struct SchemaData;
}

/// A compiled schema. Immutable and cheap to copy (shared); validate() may run concurrently from
/// any number of threads.
class Schema {
  public:
    Schema() = default;

    /// True when `instance` is valid. Without a sink returns at the first failure and allocates
    /// nothing. With a sink collects every error (up to the sink's limit); valid input still
    /// allocates nothing. Never throws; a cyclic schema fails with "recursion_loop".
    bool validate(const json::Value& instance, ErrorSink* errors = nullptr) const;

    /// The draft of the root schema.
    Draft draft() const;
    /// False for a default-constructed Schema (which accepts everything).
    bool compiled() const { return data_ != nullptr; }

    /// Internal: the compiled data, for coerce() and tests.
    const detail::SchemaData* data() const { return data_.get(); }

  private:
    friend Schema compile(const json::Value& schema, const CompileOptions& options);
    explicit Schema(std::shared_ptr<const detail::SchemaData> data) : data_(std::move(data)) {}

    std::shared_ptr<const detail::SchemaData> data_;
};

/// Compiles `schema` (an object or a boolean). Control plane: throws SchemaError with the exact
/// location and reason on a malformed schema, an unsupported `$schema`, an unresolvable `$ref`,
/// or a pattern RE2 cannot run (lookaround, backreferences). The result does not reference
/// `schema`: it keeps its own copy.
Schema compile(const json::Value& schema, const CompileOptions& options = {});

}  // namespace slipstream::json::schema
