// The ASGI `http` scope of an engine Request, built in C++ for slipstream.asgi's bridge (python/slipstream/_asgi).
#pragma once

#include <Python.h>

#include "slipstream/request.h"

namespace slipstream::python {

/// A new dict: a copy of `base` (the keys every request of a server shares: type, asgi, scheme, root_path, server,
/// extensions) with the request's method, path and raw_path (each with base's root_path first; raw_path is the
/// target as sent, escapes such as %2F kept), query_string (bytes), headers (lowercased names and values as
/// bytes, in the order received; Content-Encoding left out, the engine decoded the body), http_version ("1.0",
/// "1.1", "2"), client ((host, port), or None when the peer is not an IP address) and state (a copy of `state`, a
/// dict or None). nullptr with a Python exception set on failure. GIL held.
PyObject* asgi_http_scope(const Request& request, PyObject* base, PyObject* state);

}  // namespace slipstream::python
