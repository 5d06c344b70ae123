// send_file: a FileResponse's answer handed to the engine as a file body (sent with sendfile(2)).
#pragma once

namespace nanobind {
class module_;
}

namespace slipstream::python {

/// Registers send_file(writer, status, content_type, headers, path, offset, length) on the extension module:
/// `path` is bytes (os.fsencode). Answers a StreamWriter's request with a Response whose body is the file region
/// (slipstream::FileBody). The engine opens, sends and closes the file on the connection's I/O thread. Returns False
/// when the request was already answered or the client left.
void register_file(nanobind::module_& m);

}  // namespace slipstream::python
