// TlsContextStore: the current TlsContext, swapped on a certificate reload while connections keep theirs.
#pragma once

#include <memory>
#include <mutex>
#include <utility>

#include "net/tls/tls_context.h"

namespace slipstream::net::tls {

/// Holds the context new handshakes use. replace() swaps it (a reload); connections already accepted
/// keep the context they started with, so none is dropped. Thread-safe: one short lock per accepted
/// connection.
class TlsContextStore {
  public:
    explicit TlsContextStore(std::shared_ptr<const TlsContext> initial) : current_(std::move(initial)) {}

    std::shared_ptr<const TlsContext> current() const {
        std::lock_guard lock(mutex_);
        return current_;
    }
    void replace(std::shared_ptr<const TlsContext> next) {
        {
            std::lock_guard lock(mutex_);
            current_.swap(next);
        }
        // `next` now holds the old context; connections still using it keep it alive.
    }

  private:
    mutable std::mutex mutex_;
    std::shared_ptr<const TlsContext> current_;
};

}  // namespace slipstream::net::tls
