// RouteDesc: reads the Python route records field by field (and writes them back for the round-trip test).
#include "route_desc.h"

#include <stdexcept>
#include <string_view>

#include "record_fields.h"

namespace slipstream::python {
namespace {

constexpr RecordFields F("route description");

// slipstream._core.route_desc.ParamDesc -> ParamSpec.
ParamSpec read_param(PyObject* p) {
    ParamSpec ps;
    ps.name = F.str_of(F.attr(p, "name", "param").get(), "param name");
    ps.source = static_cast<ParamSource>(F.int_in(F.attr(p, "source", "param").get(), 0, 3, "param source"));
    ps.alias = F.str_of(F.attr(p, "alias", "param").get(), "param alias");
    ps.schema_json = F.str_of(F.attr(p, "schema", "param").get(), "param schema");
    ps.required = PyObject_IsTrue(F.attr(p, "required", "param").get()) == 1;
    ps.default_json = F.str_of(F.attr(p, "default", "param").get(), "param default");
    return ps;
}

// slipstream._core.route_desc.BodyDesc -> BodySpec.
BodySpec read_body(PyObject* b) {
    BodySpec bs;
    bs.name = F.str_of(F.attr(b, "name", "body").get(), "body name");
    bs.schema_json = F.str_of(F.attr(b, "schema", "body").get(), "body schema");
    bs.required = PyObject_IsTrue(F.attr(b, "required", "body").get()) == 1;
    bs.default_json = F.str_of(F.attr(b, "default", "body").get(), "body default");
    bs.embed = PyObject_IsTrue(F.attr(b, "embed", "body").get()) == 1;
    return bs;
}

ArgDesc read_arg(PyObject* a) {
    ArgDesc arg;
    PyObject* name = nullptr;
    PyRef name_ref = F.attr(a, "name", "arg");
    F.str_of(name_ref.get(), "arg name");
    name = name_ref.release();
    PyUnicode_InternInPlace(&name);
    arg.name = PyRef::steal(name);
    arg.kind = static_cast<ArgKind>(F.int_in(F.attr(a, "kind", "arg").get(), 0, 2, "arg kind"));
    if (arg.kind == ArgKind::kValue) {
        arg.index = static_cast<std::size_t>(F.int_in(F.attr(a, "index", "arg").get(), 0, PY_SSIZE_T_MAX, "arg index"));
        arg.key = F.str_of(F.attr(a, "key", "arg").get(), "arg key");
        arg.plan = F.attr(a, "plan", "arg");
    }
    arg.loc = F.attr(a, "loc", "arg");
    return arg;
}

constexpr const char* kSourceNames[] = {"kPath", "kQuery", "kHeader", "kCookie"};
constexpr const char* kArgKindNames[] = {"kValue", "kRequest", "kReply"};

}  // namespace

RouteDesc read_route_desc(PyObject* desc) {
    RouteDesc d;
    d.handler = F.attr(desc, "handler", "route");
    if (!PyCallable_Check(d.handler.get())) F.bad("handler", "is not callable");
    d.is_coroutine = PyObject_IsTrue(F.attr(desc, "is_coroutine", "route").get()) == 1;
    d.status_code = static_cast<int>(F.int_in(F.attr(desc, "status_code", "route").get(), 100, 999, "status_code"));
    d.prepare = F.attr(desc, "prepare", "route");
    PyRef ttl = F.attr(desc, "cache_ttl", "route");
    d.cache_ttl_s = PyFloat_AsDouble(ttl.get());
    if (d.cache_ttl_s == -1.0 && PyErr_Occurred()) F.bad("cache_ttl", "must be a number");
    for (PyObject* name : F.items_of(F.attr(desc, "path_params", "route").get(), "path_params")) {
        F.str_of(name, "path param");
        d.path_params.push_back(PyRef::borrow(name));
    }
    for (PyObject* p : F.items_of(F.attr(desc, "params", "route").get(), "params"))
        d.spec.params.push_back(read_param(p));
    for (PyObject* b : F.items_of(F.attr(desc, "body", "route").get(), "body"))
        d.spec.body.push_back(read_body(b));
    d.spec.forward_errors = PyObject_IsTrue(F.attr(desc, "forward_errors", "route").get()) == 1;
    d.spec.json_without_content_type = PyObject_IsTrue(F.attr(desc, "strict_content_type", "route").get()) == 0;
    PyRef limit = F.attr(desc, "max_body_size", "route");
    if (limit.get() != Py_None)
        d.spec.max_body_bytes = static_cast<std::size_t>(F.int_in(limit.get(), 0, PY_SSIZE_T_MAX, "max_body_size"));
    std::vector<PyObject*> args = F.items_of(F.attr(desc, "args", "route").get(), "args");
    for (std::size_t i = 0; i < args.size(); ++i) {
        d.args.push_back(read_arg(args[i]));
        if (d.args.back().kind == ArgKind::kReply && i + 1 != args.size()) F.bad("the reply", "must be last");
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
    PyRef limit =
        d.spec.max_body_bytes ? PyRef::steal(PyLong_FromSize_t(*d.spec.max_body_bytes)) : PyRef::borrow(Py_None);
    if (!limit) return nullptr;
    return Py_BuildValue("{s:O,s:O,s:i,s:O,s:d,s:O,s:O,s:O,s:O,s:O,s:O,s:O}", "handler", d.handler.get(),
                         "is_coroutine", d.is_coroutine ? Py_True : Py_False, "status_code", d.status_code, "prepare",
                         d.prepare.get(), "cache_ttl", d.cache_ttl_s, "path_params", path_params.get(), "params",
                         params.get(), "body", body.get(), "forward_errors", d.spec.forward_errors ? Py_True : Py_False,
                         "strict_content_type", d.spec.json_without_content_type ? Py_False : Py_True, "max_body_size",
                         limit.get(), "args", args.get());
}

}  // namespace slipstream::python
