// CompiledSchemaCache: compiled schemas by their text, so requests that repeat a schema compile it once.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "agent/structured/compiled_schema.h"
#include "base/result.h"

namespace slipstream::agent::structured {

/// The most recently used `capacity` schemas (by their exact text, looked up by hash), shared: a hit hands out the
/// same immutable CompiledSchema. Errors are not kept. Thread-safe; compiling happens outside the lock (two threads
/// missing on the same text both compile, and one result is kept).
class CompiledSchemaCache {
  public:
    static constexpr std::size_t kDefaultCapacity = 64;

    explicit CompiledSchemaCache(std::size_t capacity = kDefaultCapacity) : capacity_(capacity) {}

    /// CompiledSchema::create(text), or the schema compiled before from the same text.
    base::Result<std::shared_ptr<const CompiledSchema>> get(std::string_view text);
    std::size_t size() const;
    /// Lookups answered from the cache so far.
    std::size_t hits() const;

  private:
    using Entry = std::pair<std::string, std::shared_ptr<const CompiledSchema>>;

    mutable std::mutex mu_;
    std::size_t capacity_;
    std::size_t hits_ = 0;
    std::list<Entry> lru_;                                                    // most recent first
    std::unordered_map<std::string_view, std::list<Entry>::iterator> index_;  // keys view lru_'s strings
};

}  // namespace slipstream::agent::structured
