// Builtins: Jinja's filters and tests, Python's str/dict methods, and the render budget they spend from.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agent/infer/jinja/value.h"
#include "base/result.h"

namespace slipstream::agent::infer::jinja {

/// What one render may still spend (kMaxLoopIterations, kMaxBuiltBytes); errors name the limit.
class Budget {
  public:
    /// Loop iterations and list elements built.
    base::Status spend_items(int64_t n);
    /// A string of `n` bytes was built: counts toward kMaxBuiltBytes, and no one string may pass kMaxOutputBytes.
    base::Status spend_bytes(std::size_t n);

  private:
    int64_t items_ = 0;
    std::size_t bytes_ = 0;
};

/// Arguments of a filter, test, method or function call, after evaluation.
struct CallArgs {
    std::vector<Value> positional;
    std::vector<std::pair<std::string, Value>> named;

    /// The argument at position `i`, else the one named `name`; null when neither was given.
    const Value* get(std::size_t i, std::string_view name) const;
};

/// `subject | name(args)`. Unknown filters and wrong argument types are invalid_argument.
base::Result<Value> apply_filter(std::string_view name, const Value& subject, const CallArgs& args, Budget& budget);

/// `subject is name(args)`.
base::Result<bool> apply_test(std::string_view name, const Value& subject, const CallArgs& args);

/// `object.name(args)` for the str and dict methods chat templates use (and loop.cycle).
base::Result<Value> call_method(const Value& object, std::string_view name, const CallArgs& args, Budget& budget);

/// `a in b` as Python answers it (substring, element, key); a type error otherwise.
base::Result<bool> contains(const Value& container, const Value& item, Budget& budget);

/// A list of what `for x in v` visits: list elements, dict keys, a string's characters; undefined gives none.
base::Result<Array> iterate(const Value& v, Budget& budget);

/// The characters (code points, as UTF-8) of `s`.
std::vector<std::string_view> code_points(std::string_view s);

}  // namespace slipstream::agent::infer::jinja
