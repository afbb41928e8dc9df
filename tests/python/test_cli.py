"""The atbx command-line contract: exit codes, messages, and no output file unless a run succeeds."""
import json
import os
import subprocess

import numpy as np
import pytest

from atbx_case import Tensor, run, write_case


def decode_case(directory, **param_overrides):
    """A valid PagedAttention decode case: 4 heads over 2, head size 16, block size 16, two sequences."""
    rng = np.random.default_rng(5)
    param = {"headNum": 4, "kvHeadNum": 2, "qkScale": 0.25}
    param.update(param_overrides)
    inputs = [
        Tensor(rng.uniform(-1, 1, (2, 4, 16)), "float16"),
        Tensor(rng.uniform(-1, 1, (3, 16, 2, 16)), "float16"),
        Tensor(rng.uniform(-1, 1, (3, 16, 2, 16)), "float16"),
        Tensor(np.array([[0, 1], [2, 0]]), "int32"),
        Tensor(np.array([20, 9]), "int32"),
    ]
    return write_case(directory, "PagedAttention", param, inputs, ["out.npy"])


def edit_case(path, change):
    with open(path) as f:
        case = json.load(f)
    change(case)
    with open(path, "w") as f:
        json.dump(case, f)


def outputs_in(directory):
    return sorted(name for name in os.listdir(directory) if name.startswith("out"))


def expect_usage_error(atbx, case, directory, fragment):
    result = run(atbx, "run", case)
    assert result.returncode == 1, (result.returncode, result.stderr)
    assert fragment in result.stderr, result.stderr
    assert outputs_in(directory) == []


def test_run_writes_output(atbx, tmp_path):
    case = decode_case(tmp_path)
    result = run(atbx, "run", case)
    assert result.returncode == 0, result.stderr
    out = np.load(tmp_path / "out.npy")
    assert out.shape == (2, 4, 16) and out.dtype == np.float16
    assert np.isfinite(out).all()


def test_run_into_out_dir(atbx, tmp_path):
    case = decode_case(tmp_path / "case")
    result = run(atbx, "run", case, "--out", str(tmp_path / "results"), "--backend", "ref", "--threads", "1")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "results" / "out.npy").exists()
    assert outputs_in(tmp_path / "case") == []


def test_backends_agree(atbx, tmp_path):
    case = decode_case(tmp_path)
    assert run(atbx, "run", case, "--backend", "ref", "--out", str(tmp_path / "ref")).returncode == 0
    assert run(atbx, "run", case, "--backend", "cpu", "--out", str(tmp_path / "cpu")).returncode == 0
    ref = np.load(tmp_path / "ref" / "out.npy").astype(np.float64)
    cpu = np.load(tmp_path / "cpu" / "out.npy").astype(np.float64)
    assert np.all(np.abs(ref - cpu) <= 2 ** -8 * np.maximum(1, np.abs(ref)))


def test_check_valid(atbx, tmp_path):
    result = run(atbx, "check", decode_case(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "valid" in result.stdout


def test_check_prints_every_violation_of_the_stage(atbx, tmp_path):
    case = decode_case(tmp_path, headNum=0, kvHeadNum=-1)
    result = run(atbx, "check", case)
    assert result.returncode == 2
    assert "pa.param.head_num_positive" in result.stderr
    assert "pa.param.kv_head_num_non_negative" in result.stderr


def test_rule_violation_exits_2_and_names_the_rule(atbx, tmp_path):
    case = decode_case(tmp_path)
    np.save(tmp_path / "in3.npy", np.array([[0, 7], [2, 0]], dtype=np.int32))  # block 7 of 3
    result = run(atbx, "run", case)
    assert result.returncode == 2
    assert "pa.device.block_ids_in_range" in result.stderr
    assert "[0, num_blocks = 3)" in result.stderr and "got 7" in result.stderr
    assert outputs_in(tmp_path) == []


def test_enum_out_of_range_is_a_rule_violation(atbx, tmp_path):
    case = decode_case(tmp_path, maskType=9)
    result = run(atbx, "run", case)
    assert result.returncode == 2
    assert "pa.param.mask_type_range" in result.stderr
    assert outputs_in(tmp_path) == []


def test_platform_override(atbx, tmp_path):
    case = decode_case(tmp_path)
    assert run(atbx, "check", case, "--platform", "atlas-a2").returncode == 0
    assert run(atbx, "check", case, "--platform", "atlas-9000").returncode == 1


@pytest.mark.parametrize("content,fragment", [
    (b"\x93NUMPY\x01\x00\x76\x00{'descr': '<f2', 'fortran_order': False, 'shape': (2, 4, 16), }", "truncated"),
    (b"NOTNUMPY" + bytes(200), "wrong magic"),
    (b"", "wrong magic"),
    (b"\x93NUMPY\x01\x00\x10\x00{'descr': '<f2'\n", "malformed .npy header"),
    (b"\x93NUMPY\x09\x00\x00\x00", "unsupported .npy format version"),
])
def test_malformed_npy(atbx, tmp_path, content, fragment):
    case = decode_case(tmp_path)
    with open(tmp_path / "in0.npy", "wb") as f:
        f.write(content)
    expect_usage_error(atbx, case, tmp_path, fragment)


def test_npy_with_trailing_bytes(atbx, tmp_path):
    case = decode_case(tmp_path)
    with open(tmp_path / "in0.npy", "ab") as f:
        f.write(b"\0\0")
    expect_usage_error(atbx, case, tmp_path, "trailing bytes")


def test_npy_dtype_contradicts_case(atbx, tmp_path):
    case = decode_case(tmp_path)
    np.save(tmp_path / "in0.npy", np.zeros((2, 4, 16), dtype=np.int32))
    expect_usage_error(atbx, case, tmp_path, "the case file says float16")


def test_declared_shape_contradicts_npy(atbx, tmp_path):
    case = decode_case(tmp_path)
    edit_case(case, lambda c: c["inputs"][0].update(shape=[2, 4, 8]))
    expect_usage_error(atbx, case, tmp_path, "declares shape")


def test_fortran_order_npy(atbx, tmp_path):
    case = decode_case(tmp_path)
    np.save(tmp_path / "in0.npy", np.asfortranarray(np.ones((2, 4, 16), dtype=np.float16)))
    expect_usage_error(atbx, case, tmp_path, "Fortran")


def test_unsupported_npy_dtype(atbx, tmp_path):
    case = decode_case(tmp_path)
    np.save(tmp_path / "in0.npy", np.zeros((2, 4, 16), dtype=">f2"))  # big-endian
    expect_usage_error(atbx, case, tmp_path, "unsupported .npy dtype")


@pytest.mark.parametrize("change,fragment", [
    (lambda c: c.pop("op"), "missing \"op\""),
    (lambda c: c.pop("inputs"), "missing \"inputs\""),
    (lambda c: c.update(op="FlashAttention"), "unknown op"),
    (lambda c: c.update(platform="atlas-9000"), "unknown platform"),
    (lambda c: c["param"].update(headNumber=4), "unknown param field 'headNumber'"),
    (lambda c: c["param"].update(headNum="4"), "must be an integer"),
    (lambda c: c["param"].update(qkScale="x"), "must be a number"),
    (lambda c: c["param"].update(qkScale=1e39), "'qkScale' must be a number that fits a float"),
    (lambda c: c["param"].update(headNum=2 ** 40), "fits its field"),
    (lambda c: c.update(extra=1), "unknown key \"extra\""),
    (lambda c: c["inputs"][1].update(dtype="float8"), "unknown dtype"),
    (lambda c: c["inputs"][1].update(format="NZ"), "format must be"),
    (lambda c: c["inputs"][1].update(file="missing.npy"), "cannot open"),
    (lambda c: c["outputs"].append({"file": "out2.npy"}), "lists 2 files"),
    (lambda c: c.update(inputs={}), "must be arrays"),
])
def test_malformed_case_file(atbx, tmp_path, change, fragment):
    case = decode_case(tmp_path)
    edit_case(case, change)
    expect_usage_error(atbx, case, tmp_path, fragment)


def test_malformed_json(atbx, tmp_path):
    case = decode_case(tmp_path)
    with open(case, "a") as f:
        f.write("}")
    expect_usage_error(atbx, case, tmp_path, "malformed JSON")


@pytest.mark.parametrize("command", ["run", "check"])
def test_case_path_is_a_directory(atbx, tmp_path, command):
    result = run(atbx, command, str(tmp_path))
    assert result.returncode == 1
    assert "not a regular file" in result.stderr


def test_input_path_is_a_directory(atbx, tmp_path):
    case = decode_case(tmp_path)
    os.mkdir(tmp_path / "folder")
    edit_case(case, lambda c: c["inputs"][1].update(file="folder"))
    expect_usage_error(atbx, case, tmp_path, "not a regular file")


def test_missing_case_file(atbx, tmp_path):
    result = run(atbx, "run", str(tmp_path / "nothing.json"))
    assert result.returncode == 1
    assert "cannot open" in result.stderr


@pytest.mark.parametrize("args", [[], ["run"], ["frobnicate"], ["run", "x.json", "--backend", "gpu"],
                                  ["run", "x.json", "--threads", "-2"]])
def test_usage_errors_exit_1(atbx, args):
    assert run(atbx, *args).returncode == 1


def test_wrong_input_count_is_a_rule_violation(atbx, tmp_path):
    case = decode_case(tmp_path)
    edit_case(case, lambda c: c["inputs"].pop())
    result = run(atbx, "run", case)
    assert result.returncode == 2
    assert "call.count.inputs" in result.stderr
    assert outputs_in(tmp_path) == []


def test_bfloat16_inputs_are_raw_bits(atbx, tmp_path):
    rng = np.random.default_rng(3)
    inputs = [
        Tensor(rng.uniform(-1, 1, (1, 2, 16)), "bfloat16"),
        Tensor(rng.uniform(-1, 1, (1, 16, 1, 16)), "bfloat16"),
        Tensor(rng.uniform(-1, 1, (1, 16, 1, 16)), "bfloat16"),
        Tensor(np.array([[0]]), "int32"),
        Tensor(np.array([16]), "int32"),
    ]
    case = write_case(tmp_path, "PagedAttention", {"headNum": 2, "kvHeadNum": 1}, inputs, ["out.npy"])
    result = run(atbx, "run", case)
    assert result.returncode == 0, result.stderr
    out = np.load(tmp_path / "out.npy")
    assert out.dtype == np.uint16 and out.shape == (1, 2, 16)


def test_random_npy_bytes_never_crash(atbx, tmp_path):
    """Corrupted .npy files (random bytes after a real header's start, truncations, flipped bytes) end with exit
    1 or 2 and a message, never a crash."""
    rng = np.random.default_rng(77)
    case = decode_case(tmp_path)
    original = (tmp_path / "in0.npy").read_bytes()
    for trial in range(40):
        data = bytearray(original)
        kind = trial % 4
        if kind == 0:
            data = data[:rng.integers(0, len(data))]
        elif kind == 1:
            for _ in range(4):
                data[rng.integers(0, 128)] = rng.integers(0, 256)
        elif kind == 2:
            data = data[:10] + bytes(rng.integers(0, 256, rng.integers(0, 300), dtype=np.uint8))
        else:
            data[8:10] = bytes(rng.integers(0, 256, 2, dtype=np.uint8))
        (tmp_path / "in0.npy").write_bytes(bytes(data))
        result = run(atbx, "run", case)
        assert result.returncode in (0, 1, 2), (trial, result.returncode, result.stderr)
        assert result.returncode == 0 or result.stderr.strip(), trial
        for name in outputs_in(tmp_path):
            os.remove(tmp_path / name)


def paths_with_hidden(atbx, hidden):
    env = {**os.environ, "ATBX_HIDE_CPU_FEATURES": hidden}
    return subprocess.run([atbx, "paths"], capture_output=True, text=True, timeout=60, env=env)


def test_paths_lists_the_cpu_features_then_the_paths(atbx):
    lines = run(atbx, "paths").stdout.splitlines()
    assert lines[0].startswith("cpu features: ")
    assert [line.split()[0] for line in lines[1:]] == ["cpu:amx", "cpu:avx512", "cpu:avx2", "cpu:scalar"]
    assert lines[-1] == "cpu:scalar available"


def test_hidden_cpu_features_make_their_paths_unavailable(atbx):
    result = paths_with_hidden(atbx, "avx512, avx2")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "cpu features: sse2 (ATBX_HIDE_CPU_FEATURES hides: avx512, avx2)"
    assert "cpu:avx512 unavailable: this CPU lacks AVX-512F" in lines
    assert "cpu:avx2 unavailable: this CPU lacks AVX2" in lines
    assert "cpu:scalar available" in lines


def test_hidden_amx_refuses_cpu_amx_in_every_build(atbx):
    # Builds with the AMX tile model (the asan preset) run cpu:amx without the CPU's AMX, yet hiding it still
    # refuses the path, as on a CPU without it.
    result = paths_with_hidden(atbx, "amx-bf16")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    refusal = "cpu:amx unavailable: this CPU lacks AMX-BF16 (or Linux refused its tile state)"
    assert any(line.startswith(refusal) for line in lines), lines
    assert "cpu:scalar available" in lines


def test_unknown_hidden_cpu_features_are_a_usage_error(atbx):
    result = paths_with_hidden(atbx, "avx512vnni avx1024")
    assert result.returncode == 1
    assert "names features atbx does not know: 'avx1024'" in result.stderr
    assert "avx512bf16" in result.stderr  # the names it knows
