// Coercion mode: raw parameter strings (path, query, header, cookie, form) -> typed JSON, then validation.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "base/arena.h"
#include "base/result.h"
#include "json/schema/error_sink.h"
#include "json/schema/schema.h"
#include "json/value.h"

namespace slipstream::json::schema {

/// Turns the raw text of one parameter into the JSON value its schema asks for, parsing strings as
/// pydantic's lax mode does, then validates the value against `schema`.
///
/// - `raw` holds every occurrence of the parameter in order (repeated query keys). A schema whose
///   type includes "array" (and not "string") gets all of them as items, each coerced with the
///   items schema; any other schema gets the last occurrence (as Starlette's `get` does).
/// - Scalars: a schema that allows "string" keeps the text (pydantic's smart union prefers the
///   exact type). Otherwise "integer" accepts " 1 ", "+1", "1_000", "1.000" (zero fraction) and
///   rejects "1.5", "1e3" ("int_parsing"); "number" accepts Python float() syntax including
///   "inf", "nan", "1_0.5" ("float_parsing"); "boolean" accepts 1/0, true/false, yes/no, on/off,
///   t/f, y/n in any case ("bool_parsing"). Integers beyond 64 bits are exact kBigInt values; past
///   Python's 4300 significant digits they give "int_parsing_size" (pydantic's limit).
/// - No occurrence: an array schema gets []; anything else is "missing" ("Field required").
///
/// Returns the value (its strings and arrays live in `arena`) or Status::invalid_argument; errors go
/// to `errors` when given, with `loc` relative to the parameter (an item's index for lists).
/// Never throws; thread-safe for distinct arenas and sinks.
base::Result<json::Value> coerce(const Schema& schema, std::span<const std::string_view> raw, base::Arena& arena,
                                 ErrorSink* errors = nullptr);

/// One occurrence.
inline base::Result<json::Value> coerce(const Schema& schema, std::string_view raw, base::Arena& arena,
                                        ErrorSink* errors = nullptr) {
    return coerce(schema, std::span<const std::string_view>(&raw, 1), arena, errors);
}

/// pydantic's lax parsing of one string as an int, a float or a bool (the rules of coerce() above), for
/// callers that convert strings found elsewhere (a JSON body's values). Values live in static storage, except
/// a kBigInt's text, which lives in `arena`; without an arena, integers beyond 64 bits are kTooBig.
enum class LaxInt : std::uint8_t { kOk, kInvalid, kTooBig };
LaxInt parse_lax_int(std::string_view text, base::Arena* arena, json::Value* out);
LaxInt parse_lax_int(std::string_view text, json::Value* out);
bool parse_lax_float(std::string_view text, json::Value* out);
bool parse_lax_bool(std::string_view text, json::Value* out);

}  // namespace slipstream::json::schema
