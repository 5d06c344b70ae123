// NativeDecisions and decide_replay: slipstream::DecisionService and replay_decisions for slipstream.decide.
#pragma once

#include <nanobind/nanobind.h>

namespace slipstream::python {

/// Adds to the module:
/// - `NativeDecisions(options: dict)`: opens the decision store (the GIL released) and starts its sweeper. Keys:
///   store_url (required) and every other DecisionsOptions field by name (slipstream/decisions.h); an unknown key,
///   a bad value, access file or rate raises ValueError; a store that cannot be opened raises RuntimeError.
///   `mount(native_app, prefix, openapi_path) -> str` registers the routes and metrics before the app starts and
///   returns their OpenAPI document (JSON text); `close()` writes what is queued and closes the store.
/// - `decide_replay(spec, candidate, log, options) -> (report_json, reasons)`: replay_decisions (the GIL released);
///   options: min_samples, resamples, seed, max_decisions. Bad input raises ValueError naming the line or field.
void register_decide(nanobind::module_& m);

}  // namespace slipstream::python
