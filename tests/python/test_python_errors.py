"""Every error the Python package raises: rule violations (ConstraintError with the rule id, status and message,
as `atbx check` reports them), bad dtypes, bad param names and types, the wrong number of inputs, unknown
platforms and backends, and tensors a convenience function misses or does not take."""
import pickle

import numpy as np
import pytest

import atbx
import pa_cases
from atbx_case import run, write_case
from python_package_cases import pa_call


def test_a_param_rule_raises_constraint_error():
    with pytest.raises(atbx.ConstraintError) as error:
        atbx.Operation("PagedAttention", {"headNum": 0})
    assert error.value.rule_id == "pa.param.head_num_positive"
    assert error.value.status == "ERROR_INVALID_PARAM"
    assert error.value.code == 1
    assert "headNum" in error.value.message
    assert str(error.value).startswith("ERROR_INVALID_PARAM [pa.param.head_num_positive] ")


def test_a_call_rule_raises_what_the_cli_reports(atbx_cli, tmp_path):
    call, inputs = pa_call(seed=21)
    inputs[0] = inputs[0][:, :7].copy()  # 7 query heads for headNum 8
    call.tensors["query"].array = inputs[0]
    case = write_case(str(tmp_path), "PagedAttention", call.param,
                      [call.tensors[n] for n in pa_cases.input_order(call.param)], ["out.npy"])
    cli = run(atbx_cli, "check", case)
    assert cli.returncode == 2
    op = atbx.Operation("PagedAttention", call.param)
    with pytest.raises(atbx.ConstraintError) as error:
        op(inputs)
    assert error.value.status == "ERROR_INVALID_TENSOR_DIM"
    assert f"violated {error.value.rule_id} ({error.value.status}): {error.value.message}" in cli.stderr
    violations = op.check(inputs)
    assert violations and violations[0].rule_id == error.value.rule_id
    assert violations[0].message == error.value.message


def test_check_of_a_valid_call_is_empty_and_executes_nothing():
    call, inputs = pa_call(seed=22)
    op = atbx.Operation("PagedAttention", call.param)
    assert op.check(inputs) == []
    assert op.kernel == ""


def test_a_bad_dtype_is_a_type_error():
    call, inputs = pa_call(seed=23)
    inputs[0] = inputs[0].astype(np.float64)
    with pytest.raises(TypeError, match=r"input 0 \(query\) has dtype float64"):
        atbx.Operation("PagedAttention", call.param)(inputs)


def test_an_input_that_is_not_an_array_is_a_type_error():
    call, inputs = pa_call(seed=24)
    inputs[4] = [5, 33, 17]
    with pytest.raises(TypeError, match=r"input 4 \(contextLens\) must be a numpy.ndarray or a torch.Tensor"):
        atbx.Operation("PagedAttention", call.param)(inputs)


def test_a_dtype_atb_rejects_is_a_rule_violation():
    call, inputs = pa_call(seed=25)
    inputs[4] = inputs[4].astype(np.int64)
    with pytest.raises(atbx.ConstraintError) as error:
        atbx.Operation("PagedAttention", call.param)(inputs)
    assert error.value.status == "ERROR_INVALID_TENSOR_INI_MATCH"  # ATB's dtype-table check
    assert "int64" in error.value.message


@pytest.mark.parametrize("param,field", [({"headNm": 8}, "headNm"), ({"headNum": "8"}, "headNum"),
                                         ({"headNum": 8.5}, "headNum"), ({"headNum": 8, "maskType": [1]}, "maskType"),
                                         ({"headNum": 8, "batchRunStatusEnable": 2}, "batchRunStatusEnable")])
def test_a_bad_param_name_or_type_is_a_param_error(param, field):
    with pytest.raises(atbx.ParamError, match=field):
        atbx.Operation("PagedAttention", param)
    assert issubclass(atbx.ParamError, ValueError)


def test_numpy_scalars_are_param_values():
    op = atbx.Operation("PagedAttention", {"headNum": np.int32(8), "qkScale": np.float32(0.5)})
    assert op.param["headNum"] == 8 and op.param["qkScale"] == 0.5


def test_an_unknown_op_is_a_param_error():
    with pytest.raises(atbx.ParamError, match="unknown op"):
        atbx.Operation("FlashAttention", {})


def test_the_wrong_number_of_inputs_is_a_rule_violation():
    call, inputs = pa_call(seed=26)
    with pytest.raises(atbx.ConstraintError) as error:
        atbx.Operation("PagedAttention", call.param)(inputs[:4])
    assert error.value.rule_id == "call.count.inputs"
    assert error.value.status == "ERROR_INVALID_IN_TENSOR_NUM"


def test_a_wrong_out_shape_is_a_rule_violation():
    call, inputs = pa_call(seed=27)
    with pytest.raises(atbx.ConstraintError):
        atbx.Operation("PagedAttention", call.param)(inputs, out=[np.empty((3, 8, 63), np.float16)])


def test_unknown_platform_and_backend_are_value_errors():
    with pytest.raises(ValueError, match="unknown platform"):
        atbx.Operation("PagedAttention", {"headNum": 8}, platform="atlas-a9")
    with pytest.raises(ValueError, match="unknown backend"):
        atbx.Operation("PagedAttention", {"headNum": 8}, backend="gpu")


def test_a_function_names_the_tensor_its_param_needs():
    call, inputs = pa_call(seed=28)
    with pytest.raises(ValueError, match="missing: mask"):
        atbx.paged_attention(*inputs, head_num=8, kv_head_num=2, mask_type=1)


def test_a_function_refuses_a_tensor_its_param_does_not_take():
    call, inputs = pa_call(seed=29)
    with pytest.raises(ValueError, match="takes no log_n"):
        atbx.paged_attention(*inputs, head_num=8, kv_head_num=2, log_n=np.ones(3, np.float32), scale_type=0)


def test_constraint_error_pickles():
    error = atbx.ConstraintError("headNum must be > 0, got 0", "pa.param.head_num_positive", "ERROR_INVALID_PARAM", 1)
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.rule_id, copy.status, copy.code, copy.message) == (error.rule_id, error.status, error.code,
                                                                     error.message)


def test_an_array_in_non_native_byte_order_is_refused_by_name():
    _, inputs = pa_call(seed=64)
    inputs[0] = inputs[0].astype(inputs[0].dtype.newbyteorder(">"))
    with pytest.raises(TypeError, match=r"input 0 \(query\) has dtype float16 in non-native byte order"):
        atbx.Operation("PagedAttention", {"headNum": 8, "kvHeadNum": 2})(inputs)
