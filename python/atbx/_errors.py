"""The exceptions atbx raises."""

from __future__ import annotations

from typing import NamedTuple

from . import _atbx

ParamError = _atbx.ParamError
ParamError.__doc__ = """A param dict atbx cannot read: an unknown op or field, or a value of the wrong type.

Subclass of ValueError. The message names the field and what was expected (the case-file param contract,
docs/case-files.md)."""


class ConstraintError(Exception):
    """A call that breaks one of ATB's rules for its platform profile.

    Attributes:
        rule_id: the stable id of the violated rule ("pa.param.head_num_positive"); `atbx.rules()` lists them.
        status: ATB's status name ("ERROR_INVALID_PARAM", "ERROR_INVALID_TENSOR_DIM", ...).
        code: ATB's numeric status code.
        message: what was expected and what was given.
    """

    def __init__(self, message: str, rule_id: str, status: str, code: int) -> None:
        super().__init__(f"{status} [{rule_id}] {message}")
        self.message = message
        self.rule_id = rule_id
        self.status = status
        self.code = code

    def __reduce__(self):
        return (type(self), (self.message, self.rule_id, self.status, self.code))


class Violation(NamedTuple):
    """One violated rule, as `Operation.check` reports it."""

    rule_id: str
    status: str
    code: int
    message: str


_atbx._set_constraint_error_class(ConstraintError)
