// AccessLog: one JSON line per request, written by a background thread; I/O threads never block on it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "metrics/counter.h"

namespace slipstream::server {

/// I/O threads format lines into their own batch and hand the batch over once per loop iteration
/// (one short lock, no system call). The writer thread wakes every `flush_interval_ms`, or as soon as
/// 64 KiB wait, and writes what is pending to the fd in order: one write() for many requests. When more than
/// `max_pending_bytes` wait, new batches are dropped and counted: memory stays bounded and the I/O
/// threads never wait for a slow disk or pipe.
class AccessLog {
  public:
    /// `fd` is not owned (1 for stdout). `dropped` counts lost lines.
    AccessLog(int fd, std::size_t max_pending_bytes, std::uint32_t flush_interval_ms, metrics::Counter& dropped);
    /// Writes what is pending, then stops the writer thread.
    ~AccessLog();
    AccessLog(const AccessLog&) = delete;
    AccessLog& operator=(const AccessLog&) = delete;

    /// Takes a batch of complete lines (`lines` newline-terminated, `count` of them). Any thread.
    void submit(std::string& batch, std::size_t count);

  private:
    void run();

    int fd_;
    std::size_t max_pending_;
    std::chrono::milliseconds flush_interval_;
    metrics::Counter& dropped_;
    std::mutex mu_;
    std::condition_variable cv_;
    std::string pending_;  // guarded by mu_
    bool stop_ = false;    // guarded by mu_
    std::thread writer_;
};

/// Formats a UTC timestamp with milliseconds ("2026-11-30T06:30:00.123Z"); caches the seconds part.
class LogClock {
  public:
    void append(std::string& out, std::int64_t wall_nanos);

  private:
    std::int64_t second_ = -1;
    char text_[20] = {};  // "YYYY-MM-DDTHH:MM:SS"
};

}  // namespace slipstream::server
