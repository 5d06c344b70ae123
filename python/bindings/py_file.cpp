// send_file: a StreamWriter answered with a file region instead of bytes.
#include "py_file.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "py_stream.h"
#include "slipstream/response.h"

namespace nb = nanobind;

namespace slipstream::python {
namespace {

bool send_file(StreamWriter& writer, int status, std::optional<std::string> content_type,
               std::vector<std::pair<std::string, std::string>> headers, nb::bytes path, std::uint64_t offset,
               std::uint64_t length) {
    // The path as bytes (os.fsencode): any file name the OS accepts, not only valid UTF-8.
    Response r =
        Response::file(std::string(path.c_str(), path.size()), offset, length, content_type.value_or(""), status);
    r.headers = std::move(headers);
    writer.set_head(std::move(r));
    return writer.send({});  // the head keeps its file body; send() only sets the (unused) bytes
}

}  // namespace

void register_file(nb::module_& m) {
    m.def("send_file", &send_file, nb::arg("writer"), nb::arg("status"), nb::arg("content_type").none(),
          nb::arg("headers"), nb::arg("path"), nb::arg("offset"), nb::arg("length"));
}

}  // namespace slipstream::python
