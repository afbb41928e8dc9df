#include "status_error.h"

#include <nanobind/stl/string.h>

namespace atbx::python {
namespace {

namespace nb = nanobind;

// Owned for the life of the process: the class outlives every module that could raise it.
PyObject* constraintErrorClass = nullptr;

void Translate(const std::exception_ptr& error, void*) {
    try {
        std::rethrow_exception(error);
    } catch (const StatusError& e) {
        if (constraintErrorClass == nullptr) {
            PyErr_SetString(PyExc_RuntimeError, e.what());
            return;
        }
        const Status& st = e.status();
        nb::object args =
            nb::make_tuple(st.message(), st.rule(), ErrorTypeName(st.code()), static_cast<int>(st.code()));
        PyErr_SetObject(constraintErrorClass, args.ptr());
    }
}

}  // namespace

void SetConstraintErrorClass(nb::handle errorClass) {
    Py_XDECREF(constraintErrorClass);
    constraintErrorClass = errorClass.inc_ref().ptr();
}

void RegisterStatusErrorTranslator() {
    nb::register_exception_translator(Translate);
}

}  // namespace atbx::python
