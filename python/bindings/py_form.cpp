// parse_form: the C++ form parser (slipstream/form.h) behind slipstream.forms, with spooling to temporary files.
#include "py_form.h"

#include <fcntl.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "slipstream/form.h"

namespace nb = nanobind;

namespace slipstream::python {
namespace {

struct Entry {
    bool file = false;
    std::string name;
    std::string value;  // text, or a small file's bytes
    std::string filename;
    std::vector<std::pair<std::string, std::string>> headers;
    int fd = -1;
    std::size_t size = 0;
};

int open_temp(const std::string& dir) {
    int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)) return fd;
    std::string path = dir + "/slipstream-upload-XXXXXX";  // no O_TMPFILE here: a named file, unlinked at once
    fd = ::mkostemp(path.data(), O_CLOEXEC);
    if (fd >= 0) ::unlink(path.c_str());
    return fd;
}

bool write_all(int fd, std::string_view data) {
    while (!data.empty()) {
        ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

// Collects entries; a file past `spool_max` bytes moves to a temporary file. Runs without the GIL.
class SpoolSink : public FormSink {
  public:
    SpoolSink(std::size_t spool_max, std::string tmpdir) : spool_max_(spool_max), tmpdir_(std::move(tmpdir)) {}
    ~SpoolSink() override {
        for (Entry& e : entries_)
            if (e.fd >= 0) ::close(e.fd);
    }

    bool on_field(std::string_view name, std::string_view value) override {
        entries_.push_back(Entry{false, std::string(name), std::string(value), {}, {}, -1, 0});
        return true;
    }
    bool on_file_begin(const FormFileHead& head) override {
        entries_.push_back(Entry{true, head.name, {}, head.filename, head.headers, -1, 0});
        return true;
    }
    bool on_file_data(std::string_view data) override {
        Entry& e = entries_.back();
        e.size += data.size();
        if (e.fd < 0 && e.value.size() + data.size() <= spool_max_) {
            e.value.append(data);
            return true;
        }
        if (e.fd < 0) {
            e.fd = open_temp(tmpdir_);
            if (e.fd < 0 || !write_all(e.fd, e.value)) return io_failed();
            e.value = std::string();
        }
        return write_all(e.fd, data) || io_failed();
    }
    bool on_file_end() override { return true; }

    std::vector<Entry>& entries() { return entries_; }
    int io_errno() const { return io_errno_; }

  private:
    bool io_failed() {
        io_errno_ = errno != 0 ? errno : EIO;
        return false;
    }

    std::size_t spool_max_;
    std::string tmpdir_;
    std::vector<Entry> entries_;
    int io_errno_ = 0;
};

// Starlette's _user_safe_decode: UTF-8, else Latin-1. Urlencoded values decode with replacement, as unquote_plus.
nb::object text(std::string_view s, bool replace) {
    PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), replace ? "replace" : nullptr);
    if (o == nullptr) {
        PyErr_Clear();
        o = PyUnicode_DecodeLatin1(s.data(), static_cast<Py_ssize_t>(s.size()), nullptr);
    }
    if (o == nullptr) throw nb::python_error();
    return nb::steal(o);
}

nb::object latin1(std::string_view s) {
    PyObject* o = PyUnicode_DecodeLatin1(s.data(), static_cast<Py_ssize_t>(s.size()), nullptr);
    if (o == nullptr) throw nb::python_error();
    return nb::steal(o);
}

nb::tuple parse_form(const std::string& content_type, nb::bytes body,
                     std::tuple<std::size_t, std::size_t, std::size_t, std::size_t, std::size_t, std::size_t> limits,
                     std::size_t spool_max, std::string tmpdir) {
    FormLimits l;
    std::tie(l.max_fields, l.max_files, l.max_field_size, l.max_file_size, l.max_part_header_bytes,
             l.max_part_headers) = limits;
    std::string_view bytes(body.c_str(), body.size());
    SpoolSink sink(spool_max, std::move(tmpdir));
    FormParser parser(content_type, l, sink);
    bool ok = false;
    {
        nb::gil_scoped_release release;
        ok = parser.feed(bytes) && parser.finish();
    }
    if (!ok && sink.io_errno() != 0) {
        errno = sink.io_errno();
        PyErr_SetFromErrnoWithFilename(PyExc_OSError, "temporary file for an upload");
        throw nb::python_error();
    }
    if (!ok) {
        std::string_view kind = form_error_name(parser.error().kind);
        return nb::make_tuple(
            nb::list(), nb::make_tuple(nb::str(kind.data(), kind.size()), nb::str(parser.error().message.c_str())));
    }
    const bool urlencoded = parser.kind() == FormParser::Kind::kUrlencoded;
    nb::list entries;
    for (Entry& e : sink.entries()) {
        if (!e.file) {
            entries.append(nb::make_tuple(text(e.name, urlencoded), text(e.value, urlencoded)));
            continue;
        }
        nb::list headers;
        for (const auto& [name, value] : e.headers)
            headers.append(nb::make_tuple(latin1(name), latin1(value)));
        nb::bytes data(e.value.data(), e.value.size());
        entries.append(nb::make_tuple(text(e.name, false), text(e.filename, false), headers, data, e.fd, e.size));
        e.fd = -1;  // Python owns it now
    }
    return nb::make_tuple(entries, nb::none());
}

}  // namespace

void register_form(nb::module_& m) {
    m.def("parse_form", &parse_form, nb::arg("content_type"), nb::arg("body"), nb::arg("limits"), nb::arg("spool_max"),
          nb::arg("tmpdir"));
}

}  // namespace slipstream::python
