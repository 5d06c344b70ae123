// asgi_http_scope: an ASGI `http` scope from an engine Request, without a Request object or per-pair encoding.
#include "asgi_scope.h"

#include <string>
#include <string_view>

#include "py_ref.h"

namespace slipstream::python {

namespace {

// The scope's keys and the HTTP versions, interned once (the GIL guards the first call).
struct Keys {
    PyObject* method = PyUnicode_InternFromString("method");
    PyObject* path = PyUnicode_InternFromString("path");
    PyObject* raw_path = PyUnicode_InternFromString("raw_path");
    PyObject* query_string = PyUnicode_InternFromString("query_string");
    PyObject* headers = PyUnicode_InternFromString("headers");
    PyObject* http_version = PyUnicode_InternFromString("http_version");
    PyObject* client = PyUnicode_InternFromString("client");
    PyObject* state = PyUnicode_InternFromString("state");
    PyObject* root_path = PyUnicode_InternFromString("root_path");
    PyObject* v10 = PyUnicode_InternFromString("1.0");
    PyObject* v11 = PyUnicode_InternFromString("1.1");
    PyObject* v2 = PyUnicode_InternFromString("2");
    PyObject* get = PyUnicode_InternFromString("GET");
    PyObject* post = PyUnicode_InternFromString("POST");
    bool ok() const {
        return method && path && raw_path && query_string && headers && http_version && client && state && root_path &&
               v10 && v11 && v2 && get && post;
    }
};

const Keys* keys() {
    static const Keys* k = new Keys();  // never freed: lives as long as the interpreter
    return k->ok() ? k : nullptr;
}

PyObject* bytes_of(std::string_view s) {
    return PyBytes_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
}

// Sets scope[key] = value, stealing `value`; false with a Python exception set.
bool put(PyObject* scope, PyObject* key, PyObject* value) {
    if (value == nullptr) return false;
    const int rc = PyDict_SetItem(scope, key, value);
    Py_DECREF(value);
    return rc == 0;
}

PyObject* method_of(const Keys& k, std::string_view method) {
    if (method == "GET") return Py_NewRef(k.get);
    if (method == "POST") return Py_NewRef(k.post);
    return PyUnicode_DecodeLatin1(method.data(), static_cast<Py_ssize_t>(method.size()), nullptr);
}

PyObject* version_of(const Keys& k, std::string_view version) {
    if (version == "HTTP/2") return Py_NewRef(k.v2);
    if (version == "HTTP/1.0") return Py_NewRef(k.v10);
    return Py_NewRef(k.v11);
}

// The path part of the request target as sent: origin-form up to '?'; the path of an absolute-form target;
// otherwise (`*`, an authority) the decoded path.
std::string_view raw_path_of(const Request& request) {
    std::string_view target = request.target();
    if (target.empty() || target.front() != '/') {
        const std::size_t scheme_end = target.find("://");
        if (scheme_end == std::string_view::npos) return request.path();
        const std::size_t slash = target.find('/', scheme_end + 3);
        if (slash == std::string_view::npos) return "/";
        target.remove_prefix(slash);
    }
    return target.substr(0, target.find_first_of("?#"));
}

// ("host", port) from the engine's peer ("127.0.0.1:53122", "[::1]:40000"); None for a peer without a port ("unix").
PyObject* client_of(const Request& request) {
    const std::string peer = request.peer();
    const std::size_t colon = peer.rfind(':');
    if (colon == std::string::npos || colon + 1 == peer.size()) Py_RETURN_NONE;
    long port = 0;
    for (std::size_t i = colon + 1; i < peer.size(); ++i) {
        if (peer[i] < '0' || peer[i] > '9' || port > 65535) Py_RETURN_NONE;
        port = port * 10 + (peer[i] - '0');
    }
    std::string_view host(peer.data(), colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    PyObject* h = PyUnicode_DecodeLatin1(host.data(), static_cast<Py_ssize_t>(host.size()), nullptr);
    if (h == nullptr) return nullptr;
    PyObject* pair = PyTuple_New(2);
    PyObject* p = pair != nullptr ? PyLong_FromLong(port) : nullptr;
    if (p == nullptr) {
        Py_DECREF(h);
        Py_XDECREF(pair);
        return nullptr;
    }
    PyTuple_SET_ITEM(pair, 0, h);
    PyTuple_SET_ITEM(pair, 1, p);
    return pair;
}

PyObject* headers_of(const Request& request) {
    PyRef list = PyRef::steal(PyList_New(0));
    if (!list) return nullptr;
    bool failed = false;
    std::string lower;
    request.for_each_header([&](std::string_view name, std::string_view value) {
        if (failed) return;
        lower.assign(name);
        for (char& c : lower)
            if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        if (lower == "content-encoding") return;  // the engine decoded the body (as for a handler's Request)
        PyRef pair = PyRef::steal(PyTuple_New(2));
        PyObject* n = bytes_of(lower);
        PyObject* v = bytes_of(value);
        if (!pair || n == nullptr || v == nullptr) {
            Py_XDECREF(n);
            Py_XDECREF(v);
            failed = true;
            return;
        }
        PyTuple_SET_ITEM(pair.get(), 0, n);
        PyTuple_SET_ITEM(pair.get(), 1, v);
        failed = PyList_Append(list.get(), pair.get()) < 0;
    });
    return failed ? nullptr : list.release();
}

// `root` + `tail` as a str (UTF-8, undecodable bytes as surrogates, as a handler's Request.path) or as bytes.
PyObject* joined(std::string_view root, std::string_view tail, bool as_bytes) {
    std::string whole;
    whole.reserve(root.size() + tail.size());
    whole.append(root).append(tail);
    if (as_bytes) return bytes_of(whole);
    return PyUnicode_DecodeUTF8(whole.data(), static_cast<Py_ssize_t>(whole.size()), "surrogateescape");
}

}  // namespace

PyObject* asgi_http_scope(const Request& request, PyObject* base, PyObject* state) {
    const Keys* k = keys();
    if (k == nullptr) return nullptr;
    if (!PyDict_Check(base)) {
        PyErr_SetString(PyExc_TypeError, "the scope's base must be a dict");
        return nullptr;
    }
    PyRef scope = PyRef::steal(PyDict_Copy(base));
    if (!scope) return nullptr;
    std::string_view root;
    if (PyObject* r = PyDict_GetItemWithError(base, k->root_path); r != nullptr && PyUnicode_Check(r)) {
        Py_ssize_t n = 0;
        const char* text = PyUnicode_AsUTF8AndSize(r, &n);
        if (text == nullptr) return nullptr;
        root = std::string_view(text, static_cast<std::size_t>(n));
    } else if (PyErr_Occurred()) {
        return nullptr;
    }
    PyObject* s = scope.get();
    const bool ok =
        put(s, k->method, method_of(*k, request.method())) && put(s, k->path, joined(root, request.path(), false)) &&
        put(s, k->raw_path, joined(root, raw_path_of(request), true)) &&
        put(s, k->query_string, bytes_of(request.query_string())) && put(s, k->headers, headers_of(request)) &&
        put(s, k->http_version, version_of(*k, request.version())) && put(s, k->client, client_of(request)) &&
        put(s, k->state, state != nullptr && PyDict_Check(state) ? PyDict_Copy(state) : PyDict_New());
    return ok ? scope.release() : nullptr;
}

}  // namespace slipstream::python
