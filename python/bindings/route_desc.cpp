// RouteDesc: reads the Python route records field by field (and writes them back for the round-trip test).
#include "route_desc.h"

#include <stdexcept>
#include <string_view>

namespace slipstream::python {
namespace {

[[noreturn]] void bad(std::string_view what, std::string_view problem) {
    PyErr_Clear();
    throw std::invalid_argument("route description: " + std::string(what) + " " + std::string(problem));
}

PyRef attr(PyObject* obj, const char* name, std::string_view what) {
    PyRef r = PyRef::steal(PyObject_GetAttrString(obj, name));
    if (!r) bad(what, std::string("lacks '") + name + "'");
    return r;
}

std::string str_of(PyObject* o, std::string_view what) {
    Py_ssize_t n = 0;
    const char* s = PyUnicode_Check(o) ? PyUnicode_AsUTF8AndSize(o, &n) : nullptr;
    if (s == nullptr) bad(what, "must be a str");
    return {s, static_cast<std::size_t>(n)};
}

long long int_of(PyObject* o, std::string_view what) {
    long long v = PyLong_Check(o) ? PyLong_AsLongLong(o) : -1;
    if (!PyLong_Check(o) || PyErr_Occurred()) bad(what, "must be an int");
    return v;
}

long long int_in(PyObject* o, long long lo, long long hi, std::string_view what) {
    long long v = int_of(o, what);
    if (v < lo || v > hi) bad(what, "is out of range");
    return v;
}

bool truth(PyObject* o) {
    return PyObject_IsTrue(o) == 1;
}

std::vector<PyObject*> items_of(PyObject* seq, std::string_view what) {
    if (!PyTuple_Check(seq)) bad(what, "must be a tuple");
    std::vector<PyObject*> out;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(seq); ++i)
        out.push_back(PyTuple_GET_ITEM(seq, i));
    return out;
}

// slipstream._core.route_desc.ParamDesc -> ParamSpec.
ParamSpec read_param(PyObject* p) {
    ParamSpec ps;
    ps.name = str_of(attr(p, "name", "param").get(), "param name");
    ps.source = static_cast<ParamSource>(int_in(attr(p, "source", "param").get(), 0, 3, "param source"));
    ps.alias = str_of(attr(p, "alias", "param").get(), "param alias");
    ps.schema_json = str_of(attr(p, "schema", "param").get(), "param schema");
    ps.required = truth(attr(p, "required", "param").get());
    ps.default_json = str_of(attr(p, "default", "param").get(), "param default");
    return ps;
}

// slipstream._core.route_desc.BodyDesc -> BodySpec.
BodySpec read_body(PyObject* b) {
    BodySpec bs;
    bs.name = str_of(attr(b, "name", "body").get(), "body name");
    bs.schema_json = str_of(attr(b, "schema", "body").get(), "body schema");
    bs.required = truth(attr(b, "required", "body").get());
    bs.default_json = str_of(attr(b, "default", "body").get(), "body default");
    bs.embed = truth(attr(b, "embed", "body").get());
    return bs;
}

ArgDesc read_arg(PyObject* a) {
    ArgDesc arg;
    PyObject* name = nullptr;
    PyRef name_ref = attr(a, "name", "arg");
    str_of(name_ref.get(), "arg name");
    name = name_ref.release();
    PyUnicode_InternInPlace(&name);
    arg.name = PyRef::steal(name);
    arg.kind = static_cast<ArgKind>(int_in(attr(a, "kind", "arg").get(), 0, 2, "arg kind"));
    if (arg.kind == ArgKind::kValue) {
        arg.index = static_cast<std::size_t>(int_in(attr(a, "index", "arg").get(), 0, PY_SSIZE_T_MAX, "arg index"));
        arg.key = str_of(attr(a, "key", "arg").get(), "arg key");
        arg.plan = attr(a, "plan", "arg");
    }
    arg.loc = attr(a, "loc", "arg");
    return arg;
}

PyObject* str_from(const std::string& s) {
    return PyUnicode_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
}

constexpr const char* kSourceNames[] = {"kPath", "kQuery", "kHeader", "kCookie"};
constexpr const char* kArgKindNames[] = {"kValue", "kRequest", "kReply"};

}  // namespace

RouteDesc read_route_desc(PyObject* desc) {
    RouteDesc d;
    d.handler = attr(desc, "handler", "route");
    if (!PyCallable_Check(d.handler.get())) bad("handler", "is not callable");
    d.is_coroutine = truth(attr(desc, "is_coroutine", "route").get());
    d.status_code = static_cast<int>(int_in(attr(desc, "status_code", "route").get(), 100, 999, "status_code"));
    d.prepare = attr(desc, "prepare", "route");
    PyRef ttl = attr(desc, "cache_ttl", "route");
    d.cache_ttl_s = PyFloat_AsDouble(ttl.get());
    if (d.cache_ttl_s == -1.0 && PyErr_Occurred()) bad("cache_ttl", "must be a number");
    for (PyObject* name : items_of(attr(desc, "path_params", "route").get(), "path_params")) {
        str_of(name, "path param");
        d.path_params.push_back(PyRef::borrow(name));
    }
    for (PyObject* p : items_of(attr(desc, "params", "route").get(), "params"))
        d.spec.params.push_back(read_param(p));
    for (PyObject* b : items_of(attr(desc, "body", "route").get(), "body"))
        d.spec.body.push_back(read_body(b));
    d.spec.forward_errors = truth(attr(desc, "forward_errors", "route").get());
    std::vector<PyObject*> args = items_of(attr(desc, "args", "route").get(), "args");
    for (std::size_t i = 0; i < args.size(); ++i) {
        d.args.push_back(read_arg(args[i]));
        if (d.args.back().kind == ArgKind::kReply && i + 1 != args.size()) bad("the reply", "must be last");
    }
    return d;
}

PyObject* route_desc_to_python(const RouteDesc& d) {
    PyRef params = PyRef::steal(PyTuple_New(static_cast<Py_ssize_t>(d.spec.params.size())));
    for (std::size_t i = 0; params && i < d.spec.params.size(); ++i) {
        const ParamSpec& p = d.spec.params[i];
        PyObject* row = Py_BuildValue("{s:N,s:s,s:N,s:N,s:O,s:N}", "name", str_from(p.name), "source",
                                      kSourceNames[static_cast<int>(p.source)], "alias", str_from(p.alias), "schema",
                                      str_from(p.schema_json), "required", p.required ? Py_True : Py_False, "default",
                                      str_from(p.default_json));
        if (row == nullptr) return nullptr;
        PyTuple_SET_ITEM(params.get(), static_cast<Py_ssize_t>(i), row);
    }
    PyRef body = PyRef::steal(PyTuple_New(static_cast<Py_ssize_t>(d.spec.body.size())));
    for (std::size_t i = 0; body && i < d.spec.body.size(); ++i) {
        const BodySpec& b = d.spec.body[i];
        PyObject* row = Py_BuildValue("{s:N,s:N,s:O,s:N,s:O}", "name", str_from(b.name), "schema",
                                      str_from(b.schema_json), "required", b.required ? Py_True : Py_False, "default",
                                      str_from(b.default_json), "embed", b.embed ? Py_True : Py_False);
        if (row == nullptr) return nullptr;
        PyTuple_SET_ITEM(body.get(), static_cast<Py_ssize_t>(i), row);
    }
    PyRef args = PyRef::steal(PyTuple_New(static_cast<Py_ssize_t>(d.args.size())));
    for (std::size_t i = 0; args && i < d.args.size(); ++i) {
        const ArgDesc& a = d.args[i];
        PyObject* row =
            Py_BuildValue("{s:O,s:s,s:n,s:N,s:O,s:O}", "name", a.name.get(), "kind",
                          kArgKindNames[static_cast<int>(a.kind)], "index", static_cast<Py_ssize_t>(a.index), "key",
                          str_from(a.key), "plan", a.plan ? a.plan.get() : Py_None, "loc", a.loc.get());
        if (row == nullptr) return nullptr;
        PyTuple_SET_ITEM(args.get(), static_cast<Py_ssize_t>(i), row);
    }
    PyRef path_params = PyRef::steal(PyTuple_New(static_cast<Py_ssize_t>(d.path_params.size())));
    for (std::size_t i = 0; path_params && i < d.path_params.size(); ++i)
        PyTuple_SET_ITEM(path_params.get(), static_cast<Py_ssize_t>(i), PyRef(d.path_params[i]).release());
    if (!params || !body || !args || !path_params) return nullptr;
    return Py_BuildValue("{s:O,s:O,s:i,s:O,s:d,s:O,s:O,s:O,s:O,s:O}", "handler", d.handler.get(), "is_coroutine",
                         d.is_coroutine ? Py_True : Py_False, "status_code", d.status_code, "prepare", d.prepare.get(),
                         "cache_ttl", d.cache_ttl_s, "path_params", path_params.get(), "params", params.get(), "body",
                         body.get(), "forward_errors", d.spec.forward_errors ? Py_True : Py_False, "args", args.get());
}

}  // namespace slipstream::python
