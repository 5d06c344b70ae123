// Path parameter types ({x}, {x:int}, {x:float}, {x:uuid}, {x:path}) and their segment checks.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace slipstream::server {

/// What a path parameter accepts, following Starlette's convertors. The enumerator order is the
/// lookup priority among parameters at the same position (most specific first).
enum class ParamType : std::uint8_t {
    kInt = 0,  // optional sign + decimal digits, must fit int64 ("-12", "+7", "007")
    kFloat,    // optional sign + digits + optional ".digits" ("1", "-2.50"), in double range; no exponent
    kUuid,     // canonical 8-4-4-4-12 hex, either case
    kStr,      // any non-empty segment without '/' (the default for {x})
    kPath,     // the rest of the path, slashes included, possibly empty; only last
};

/// Number of types that occupy one segment (kInt..kStr).
inline constexpr int kSegmentParamTypes = 4;

/// The name used in patterns ("int"); "str" for kStr.
std::string_view param_type_name(ParamType type);

/// Parses a type name from a pattern ("int"); nullopt for an unknown name.
std::optional<ParamType> parse_param_type(std::string_view name);

namespace detail {

/// Accepts `seg` as an int parameter value and stores the parsed value; false if it is not one
/// or overflows int64.
bool accept_int(std::string_view seg, std::int64_t* value);

/// Accepts `seg` as a float parameter value and stores the parsed value.
bool accept_float(std::string_view seg, double* value);

/// Accepts `seg` as a canonical UUID (8-4-4-4-12 hex digits).
bool accept_uuid(std::string_view seg);

}  // namespace detail
}  // namespace slipstream::server
