// StatusError: a failed atbx::Status on its way to Python, where it is raised as atbx.ConstraintError with
// the rule id, the status name, its code and the message.
#ifndef ATBX_PYTHON_STATUS_ERROR_H
#define ATBX_PYTHON_STATUS_ERROR_H

#include <nanobind/nanobind.h>

#include <exception>
#include <string>

#include "atbx/status.h"

namespace atbx::python {

class StatusError : public std::exception {
  public:
    explicit StatusError(Status status) : status_(std::move(status)), text_(status_.ToString()) {}
    const Status& status() const { return status_; }
    const char* what() const noexcept override { return text_.c_str(); }

  private:
    Status status_;
    std::string text_;
};

// Makes StatusError raise `errorClass(message, rule_id, status_name, code)`; atbx/__init__.py passes its
// ConstraintError at import.
void SetConstraintErrorClass(nanobind::handle errorClass);
void RegisterStatusErrorTranslator();

}  // namespace atbx::python

#endif  // ATBX_PYTHON_STATUS_ERROR_H
