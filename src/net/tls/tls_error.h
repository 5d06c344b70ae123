// Turns the thread's OpenSSL error queue into text for a Status message.
#pragma once

#include <string>
#include <string_view>

namespace slipstream::net::tls {

/// "<what>: <reasons from the OpenSSL error queue, '; '-separated>" and clears the queue (which is
/// per thread: a stale entry would be blamed on the next call). "<what>" alone when the queue is empty.
std::string take_openssl_errors(std::string_view what);

}  // namespace slipstream::net::tls
