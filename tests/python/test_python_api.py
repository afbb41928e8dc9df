"""The Python package's surface: its version is CMakeLists.txt's, its rule table is the CLI's, an Operation
reports its param (with ATB's defaults), input names, output shapes and the kernel it ran, new outputs are
NumPy arrays for NumPy inputs, and the type stubs ship with the package."""
import os
import re

import numpy as np

import atbx
from atbx_case import run
from python_package_cases import pa_call

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def test_version_is_the_cmake_project_version():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        version = re.search(r"project\(atbx VERSION ([0-9.]+)", f.read()).group(1)
    assert atbx.__version__ == version


def test_rules_are_the_cli_rule_table(atbx_cli):
    result = run(atbx_cli, "rules")
    assert result.returncode == 0
    cli_ids = [line.split("\t")[0] for line in result.stdout.splitlines() if line]
    table = atbx.rules()
    assert [r["id"] for r in table] == cli_ids
    assert {"id", "op", "stage", "profiles", "status", "condition", "source"} <= set(table[0])


def test_operation_reports_param_inputs_and_outputs():
    op = atbx.Operation("PagedAttention", {"headNum": 8, "kvHeadNum": 2, "maskType": 1})
    assert op.op == "PagedAttention" and op.platform == "atlas-a2"
    assert op.param["headNum"] == 8 and op.param["qkScale"] == 1.0 and op.param["calcType"] == 0
    assert op.input_names == ["query", "keyCache", "valueCache", "blockTables", "contextLens", "mask"]
    assert op.output_names == ["attnOut"]
    assert "PagedAttention" in repr(op)


def test_infer_shape_from_arrays_and_tensor_specs():
    call, inputs = pa_call(seed=60, heads=8, head_dim=64, lens=(5, 33, 17))
    op = atbx.Operation("PagedAttention", call.param)
    assert op.infer_shape(inputs) == [atbx.TensorSpec((3, 8, 64), "float16", "ND")]
    specs = [atbx.TensorSpec(a.shape, a.dtype.name) for a in inputs]
    assert op.infer_shape(specs) == [atbx.TensorSpec((3, 8, 64), "float16", "ND")]


def test_backend_and_kernel():
    call, inputs = pa_call(seed=61)
    ref = atbx.Operation("PagedAttention", call.param, backend="ref")
    cpu = atbx.Operation("PagedAttention", call.param, backend="cpu", threads=1)
    (out,) = ref(inputs)
    cpu(inputs)
    assert ref.kernel == "reference"
    assert cpu.kernel.startswith("cpu:")
    assert isinstance(out, np.ndarray)


def test_the_package_ships_type_stubs():
    package = os.path.dirname(atbx.__file__)
    assert os.path.exists(os.path.join(package, "py.typed"))
    assert os.path.exists(os.path.join(package, "_atbx.pyi"))


def test_the_readme_example_runs(capsys):
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    example = re.search(r"From Python.*?```python\n(.*?)```", readme, re.S).group(1)
    _, inputs = pa_call(seed=62, heads=32, kv_heads=8, head_dim=128, lens=(9, 130))
    names = dict(zip(["query", "key_cache", "value_cache", "block_tables", "context_lens"], inputs))
    exec(compile(example, "README.md", "exec"), names)
    assert names["out"].shape == (2, 32, 128)
    assert capsys.readouterr().out.strip() == "call.count.inputs ERROR_INVALID_IN_TENSOR_NUM"


def test_functions_keep_one_operation_per_param():
    """The functions keep their Operations (per thread): a param seen again takes its own, never another's."""
    _, inputs = pa_call(seed=62)
    fresh = {scale: atbx.Operation("PagedAttention", {"headNum": 8, "kvHeadNum": 2, "qkScale": scale},
                                   backend="cpu", threads=1)(inputs)[0] for scale in (0.125, 0.5)}
    for scale in (0.125, 0.5, 0.125, 0.5):
        out = atbx.paged_attention(*inputs, head_num=8, kv_head_num=2, qk_scale=scale, backend="cpu", threads=1)
        np.testing.assert_array_equal(out, fresh[scale])
    assert not np.array_equal(fresh[0.125], fresh[0.5])


def test_an_operation_follows_the_shapes_of_each_call():
    """Output shapes are worked out once per set of input shapes and kept: a call of other shapes gets its own."""
    op = atbx.Operation("PagedAttention", {"headNum": 8, "kvHeadNum": 2, "qkScale": 0.125}, backend="cpu")
    for lens in ((5, 33, 17), (9,), (5, 33, 17), (1, 2)):
        call, inputs = pa_call(seed=63, lens=lens)
        (out,) = op(inputs)
        assert out.shape == (len(lens), 8, 64)
        np.testing.assert_array_equal(out, atbx.Operation("PagedAttention", call.param, backend="cpu")(inputs)[0])
