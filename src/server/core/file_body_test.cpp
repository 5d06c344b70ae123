// open_file_body: regions resolved against the file's size, and the errors for missing files and bad regions.
#include "server/core/file_body.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace slipstream::server {
namespace {

std::string temp_dir() {
    const char* dir = std::getenv("TMPDIR");
    return dir != nullptr ? dir : "/tmp";
}

TEST(FileBody, RegionsAndErrors) {
    std::string path = temp_dir() + "/ss_file_body_XXXXXX";
    int fd = ::mkstemp(path.data());
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::write(fd, "0123456789", 10), 10);
    ::close(fd);
    struct Case {
        std::string path;
        std::uint64_t offset, length;
        bool ok;
        std::uint64_t want_length;
        base::StatusCode code;
    };
    const Case cases[] = {
        {path, 0, FileBody::kToEnd, true, 10, base::StatusCode::kOk},
        {path, 4, FileBody::kToEnd, true, 6, base::StatusCode::kOk},
        {path, 2, 3, true, 3, base::StatusCode::kOk},
        {path, 10, FileBody::kToEnd, true, 0, base::StatusCode::kOk},
        {path, 10, 0, true, 0, base::StatusCode::kOk},
        {path, 11, FileBody::kToEnd, false, 0, base::StatusCode::kOutOfRange},
        {path, 5, 6, false, 0, base::StatusCode::kOutOfRange},
        {path, 1, UINT64_MAX - 1, false, 0, base::StatusCode::kOutOfRange},
        {path + ".missing", 0, FileBody::kToEnd, false, 0, base::StatusCode::kNotFound},
        {temp_dir(), 0, FileBody::kToEnd, false, 0, base::StatusCode::kInvalidArgument},
    };
    for (const Case& c : cases) {
        base::Result<OpenedFile> r = open_file_body(FileBody{c.path, c.offset, c.length});
        ASSERT_EQ(r.is_ok(), c.ok) << c.path << " " << c.offset << " " << c.length;
        if (c.ok) {
            EXPECT_EQ(r->offset, c.offset);
            EXPECT_EQ(r->length, c.want_length);
            EXPECT_TRUE(r->fd.valid());
        } else {
            EXPECT_EQ(r.status().code(), c.code) << c.path;
        }
    }
    ::unlink(path.c_str());
}

}  // namespace
}  // namespace slipstream::server
