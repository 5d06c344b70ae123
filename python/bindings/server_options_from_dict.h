// Reads ServerOptions from a Python dict of field names.
#pragma once

#include <Python.h>

#include "slipstream/server_options.h"

namespace slipstream::python {

/// A capsule holding a heap `std::shared_ptr<const IssuedCredentials>` (freed with the capsule).
inline constexpr const char* kIssuedCredentialsCapsule = "slipstream.issued_credentials";
/// A capsule holding a heap `std::shared_ptr<RateLimitStore>` (freed with the capsule).
inline constexpr const char* kRateLimitStoreCapsule = "slipstream.rate_limit_store";

/// Every key must name a ServerOptions field; values are int, bool or str as the field is, except
/// `issued_credentials` and `rate_limit_store`: capsules named kIssuedCredentialsCapsule / kRateLimitStoreCapsule
/// (py_shared_state.cpp makes them), whose shared pointers are copied. Throws std::invalid_argument naming the key on
/// an unknown key or a wrong value.
ServerOptions server_options_from_dict(PyObject* options);

}  // namespace slipstream::python
