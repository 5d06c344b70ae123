// File bodies: open + fstat of a region, and a whole-region read (pread) for HTTP/2.
#include "server/core/file_body.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace slipstream::server {

base::Result<OpenedFile> open_file_body(const FileBody& body) {
    net::Fd fd(::open(body.path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) {
        if (errno == ENOENT || errno == ENOTDIR) return base::Status::not_found("no such file");
        return base::Status::io_error("the file could not be opened");
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return base::Status::io_error("fstat failed");
    if (!S_ISREG(st.st_mode)) return base::Status::invalid_argument("not a regular file");
    auto size = static_cast<std::uint64_t>(st.st_size);
    if (body.offset > size) return base::Status::out_of_range("the region starts past the end of the file");
    std::uint64_t length = body.length == FileBody::kToEnd ? size - body.offset : body.length;
    if (length > size - body.offset) return base::Status::out_of_range("the region ends past the end of the file");
    return OpenedFile{std::move(fd), body.offset, length};
}

}  // namespace slipstream::server
