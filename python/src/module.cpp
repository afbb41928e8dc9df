// atbx._atbx: the compiled half of the atbx Python package. atbx/__init__.py and atbx/_operation.py build the
// public API (array kinds, dtypes, exceptions, the three convenience functions) on top of it.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "atbx/context.h"
#include "atbx/platform.h"
#include "io/npy.h"
#include "operation_handle.h"
#include "ops/rule_table.h"
#include "status_error.h"

namespace nb = nanobind;

namespace atbx::python {
namespace {

nb::list RuleTable() {
    nb::list table;
    for (const rules::RuleInfo* r : ops::AllRules()) {
        nb::dict row;
        row["id"] = std::string(r->id);
        row["op"] = std::string(r->op);
        row["stage"] = rules::StageName(r->stage);
        row["profiles"] = r->profiles.ToString();
        row["status"] = ErrorTypeName(r->code);
        row["condition"] = std::string(r->condition);
        row["source"] = std::string(r->source);
        table.append(row);
    }
    return table;
}

void DefineOperation(nb::module_& m) {
    nb::class_<OperationHandle>(m, "Operation")
        .def(nb::init<const std::string&, const std::string&, const std::string&>(), nb::arg("op"),
             nb::arg("param_json"), nb::arg("platform"))
        .def_prop_ro("op", &OperationHandle::op)
        .def_prop_ro("param_json", &OperationHandle::ParamJson)
        .def_prop_ro("platform", &OperationHandle::PlatformName)
        .def_prop_ro("input_names", &OperationHandle::InputNames)
        .def_prop_ro("output_names", &OperationHandle::OutputNames)
        .def_prop_ro("output_aliases", &OperationHandle::OutputAliases)
        .def_prop_ro("in_place_inputs", &OperationHandle::InPlaceInputs)
        .def_prop_ro("kernel", &OperationHandle::KernelName)
        .def("infer_shape", &OperationHandle::InferShape, nb::arg("inputs"))
        .def("check", &OperationHandle::Check, nb::arg("inputs"))
        .def("run", &OperationHandle::Run, nb::arg("inputs"), nb::arg("outputs"), nb::arg("backend"),
             nb::arg("threads"))
        .def("last_pointers", &OperationHandle::LastPointers);
}

}  // namespace
}  // namespace atbx::python

NB_MODULE(_atbx, m) {
    using namespace atbx::python;
    m.attr("__version__") = ATBX_VERSION;
    nb::exception<atbx::io::IoError>(m, "ParamError", PyExc_ValueError);
    RegisterStatusErrorTranslator();
    m.def("_set_constraint_error_class", &SetConstraintErrorClass, nb::arg("error_class"));
    DefineOperation(m);
    m.def("rules", &RuleTable);
    m.def("_max_runs_in_flight", &MaxRunsInFlight);
    m.def("_reset_runs_in_flight", &ResetRunsInFlight);
}
