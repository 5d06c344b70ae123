// parse_form for Python: a request body -> form entries, files spooled to unnamed temporary files past a size.
#pragma once

namespace nanobind {
class module_;
}

namespace slipstream::python {

/// Registers `_native.parse_form(content_type, body, limits, spool_max, tmpdir) -> (entries, error)`:
///   limits: (max_fields, max_files, max_field_size, max_file_size, max_part_header_bytes, max_part_headers);
///   entries: (name, value) for text fields, (name, filename, headers, data, fd, size) for files, where a
///   file larger than spool_max was written to an unnamed temporary file in `tmpdir` (fd >= 0, the caller
///   owns it; data is b"") and a smaller one is in `data` (fd -1);
///   error: None, or (kind, message) for a refused body (Starlette's message: answer 400 with it).
/// Parsing and file writes run without the GIL. A temporary file that cannot be written raises OSError.
void register_form(nanobind::module_& m);

}  // namespace slipstream::python
