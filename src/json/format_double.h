// format_double: a finite double as Python's repr(float) writes it (shortest round-trip digits).
#pragma once

#include <cstddef>

namespace slipstream::json {

/// Buffer size format_double() needs ("-1.2345678901234567e-308" is 24 characters).
inline constexpr std::size_t kMaxDoubleChars = 32;

/// Writes finite `d` to `out` as Python's repr(float) and json.dumps do, returns the length: the shortest
/// digits that read back as `d`; fixed notation when the decimal exponent is in [-4, 16), with ".0" added to
/// integral values; otherwise scientific with a signed, at least two-digit exponent.
/// Examples: 1.0 -> "1.0", 0.1 -> "0.1", 1e16 -> "1e+16", 1e-05 -> "1e-05", -0.0 -> "-0.0", 1.5e300 -> "1.5e+300".
/// No locale is involved. `d` must be finite (callers check; NaN and infinities are not JSON).
std::size_t format_double(double d, char* out);

}  // namespace slipstream::json
