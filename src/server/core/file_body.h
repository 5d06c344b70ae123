// File bodies: opening a Response's file region, and reading it whole where it cannot be sent from the file.
#pragma once

#include <cstdint>

#include "base/result.h"
#include "net/fd.h"
#include "slipstream/response.h"

namespace slipstream::server {

/// An opened file region, ready for OutputQueue::append_file.
struct OpenedFile {
    net::Fd fd;
    std::uint64_t offset = 0;
    std::uint64_t length = 0;
};

/// Opens `body.path` (read-only, close-on-exec) and resolves the region against the file's size now.
/// Errors: kNotFound (no such file), kInvalidArgument (not a regular file), kOutOfRange (the region ends
/// past the end of the file), kIoError (any other open/fstat failure). Blocking: a local open and fstat.
base::Result<OpenedFile> open_file_body(const FileBody& body);

}  // namespace slipstream::server
