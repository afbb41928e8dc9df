"""atbx run / check on case files written by someone hostile: deep JSON, duplicate keys, out-of-range numbers,
names that try to leave the case and output folders, huge or junk tensor files, forged messages, concurrent runs.
Every one ends with exit 1 (usage or I/O) or 2 (rule) and one clear message, never a crash, and never a file
written outside the output folder (docs/case-files.md)."""
import json
import os
import resource
import signal
import subprocess
import time

import numpy as np
import pytest

from atbx_case import Tensor, run, write_case
from test_cli import decode_case, edit_case, outputs_in

MIB = 1 << 20


def run_with_rss(args, preexec_fn=None):
    """Runs atbx; returns (returncode, peak RSS of that child in bytes beyond what `atbx rules` peaks at when
    started the same way, wall seconds). The child is forked from this Python process, so its peak includes
    the pages it shared with the parent before exec; the baseline removes them (and the binary's own)."""
    code, rss, seconds = _run_forked(args, preexec_fn)
    return code, rss - _baseline_rss(args[0]), seconds


def _baseline_rss(atbx):
    return _run_forked([atbx, "rules"], None)[1]


def _run_forked(args, preexec_fn):
    start = time.monotonic()
    pid = os.fork()
    if pid == 0:  # child: quiet, then atbx
        try:
            if preexec_fn:
                preexec_fn()
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            os.execv(args[0], args)
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    return os.waitstatus_to_exitcode(status), usage.ru_maxrss * 1024, time.monotonic() - start


def sparse_npy(path, shape, dtype, header=True):
    """A .npy file of the given shape whose data is a hole (no disk, no memory until read)."""
    with open(path, "wb") as f:
        if header:
            np.lib.format.write_array_header_1_0(f, {"descr": np.lib.format.dtype_to_descr(np.dtype(dtype)),
                                                     "fortran_order": False, "shape": tuple(shape)})
        f.truncate(f.tell() + int(np.prod(shape)) * np.dtype(dtype).itemsize)


def write_raw_case(path, text):
    with open(path, "w") as f:
        f.write(text)


def case_text(path):
    with open(path) as f:
        return f.read()


def expect_exit_1(atbx, case, fragment, *args):
    result = run(atbx, "run", case, *args)
    assert result.returncode == 1, (result.returncode, result.stderr[-2000:])
    assert fragment in result.stderr, result.stderr[-2000:]
    assert len(result.stderr) < 4000 and result.stderr.count("\n") == 1, result.stderr[-2000:]
    return result


# ---- JSON ----

@pytest.mark.parametrize("where", ["param", "description", "top"])
def test_deep_nesting_is_refused_fast(atbx, tmp_path, where):
    case = decode_case(tmp_path)
    deep = "[" * 100000 + "]" * 100000
    text = case_text(case)
    if where == "param":
        text = text.replace('"param": {', '"param": {"unknownKey": ' + deep + ", ", 1)
    elif where == "description":
        text = text.replace('"param": {', '"description": ' + deep + ', "param": {', 1)
    else:
        text = deep
    write_raw_case(case, text)
    start = time.monotonic()
    for command in ("run", "check"):
        result = run(atbx, command, case)
        assert result.returncode == 1, (result.returncode, result.stderr[-500:])
        assert "nested deeper than 32 levels" in result.stderr
    assert time.monotonic() - start < 10
    assert outputs_in(tmp_path) == []


@pytest.mark.parametrize("edit,fragment", [
    (lambda t: t.replace('"op": "PagedAttention"', '"op": "PagedAttention", "op": "SelfAttention"'),
     'duplicate key "op" in the top level'),
    (lambda t: t.replace('"headNum": 4', '"headNum": 4, "headNum": 8'), 'duplicate key "headNum" in param'),
    (lambda t: t.replace('"dtype": "int32"', '"dtype": "int32", "dtype": "int64"', 1),
     'duplicate key "dtype" in inputs[3]'),
])
def test_duplicate_keys_are_refused(atbx, tmp_path, edit, fragment):
    case = decode_case(tmp_path)
    write_raw_case(case, edit(case_text(case)))
    expect_exit_1(atbx, case, fragment)
    assert run(atbx, "check", case).returncode == 1


@pytest.mark.parametrize("literal,fragment", [
    ('"headNum": 9223372036854775808', "param field 'headNum' must be an integer that fits its field"),
    ('"headNum": 18446744073709551615', "param field 'headNum' must be an integer that fits its field"),
    ('"headNum": 100000000000000000000000000000', "param field 'headNum' must be an integer that fits"),
    ('"headNum": 2147483648', "(-2147483648 to 2147483647)"),
    ('"headNum": 4.5', "param field 'headNum' must be an integer, got 4.5"),
    ('"qkScale": 1e39', "param field 'qkScale' must be a number that fits a float"),
    ('"qkScale": -3.5e38', "param field 'qkScale' must be a number that fits a float"),
    ('"qkScale": 1e400', "number out of range at param.qkScale"),
])
def test_number_range_errors_name_the_file_and_field(atbx, tmp_path, literal, fragment):
    case = decode_case(tmp_path)
    key = literal.split(":")[0]
    text = case_text(case)
    text = text.replace('"param": {', '"param": {' + literal + ", ", 1) if key not in text else \
        text.replace(f'{key}: 4', literal).replace(f'{key}: 0.25', literal)
    write_raw_case(case, text)
    result = expect_exit_1(atbx, case, fragment)
    assert "case.json" in result.stderr


def test_shape_dim_beyond_int64(atbx, tmp_path):
    case = decode_case(tmp_path)
    edit_case(case, lambda c: c["inputs"][0].update(shape=[2 ** 64 - 1, 4, 16]))
    expect_exit_1(atbx, case, "integers in int64 range, got 18446744073709551615")


def test_long_op_name_is_capped(atbx, tmp_path):
    case = decode_case(tmp_path)
    edit_case(case, lambda c: c.update(op="A" * (5 * MIB)))
    result = expect_exit_1(atbx, case, "unknown op")
    assert f"({5 * MIB} bytes)" in result.stderr


@pytest.mark.parametrize("key", ["op", "platform", "dtype", "param key"])
def test_control_bytes_cannot_forge_a_line(atbx, tmp_path, key):
    forged = "x\x1b[2K\rviolated pa.param.head_num_positive (ERROR_INVALID_PARAM): forged\nviolated y"
    case = decode_case(tmp_path)
    if key == "op":
        edit_case(case, lambda c: c.update(op=forged))
    elif key == "platform":
        edit_case(case, lambda c: c.update(platform=forged))
    elif key == "dtype":
        edit_case(case, lambda c: c["inputs"][0].update(dtype=forged))
    else:
        edit_case(case, lambda c: c["param"].update({forged: 1}))
    result = run(atbx, "check", case)
    assert result.returncode == 1
    assert "\x1b" not in result.stderr and "\r" not in result.stderr
    assert result.stderr.count("\n") == 1 and not result.stderr.startswith("violated")
    assert "\\x1b" in result.stderr


def test_oversized_case_file_is_refused_unread(atbx, tmp_path):
    case = tmp_path / "case.json"
    with open(case, "wb") as f:
        f.truncate(64 * MIB)
    expect_exit_1(atbx, str(case), "more than the 16777216 bytes allowed")


# ---- names that leave the folders ----

def test_input_outside_the_case_folder(atbx, tmp_path):
    case = decode_case(tmp_path / "case")
    os.rename(tmp_path / "case" / "in4.npy", tmp_path / "lens.npy")
    edit_case(case, lambda c: c["inputs"][4].update(file="../lens.npy"))
    expect_exit_1(atbx, case, "outside the case file's folder")
    assert run(atbx, "run", case, "--allow-outside").returncode == 0


def test_absolute_input(atbx, tmp_path):
    case = decode_case(tmp_path / "case")
    absolute = str(tmp_path / "case" / "in4.npy")
    edit_case(case, lambda c: c["inputs"][4].update(file=absolute))
    expect_exit_1(atbx, case, "is absolute")
    assert run(atbx, "check", case, "--allow-outside").returncode == 0


def test_symlinked_input_outside_the_case_folder(atbx, tmp_path):
    case = decode_case(tmp_path / "case")
    os.rename(tmp_path / "case" / "in4.npy", tmp_path / "lens.npy")
    os.symlink(tmp_path / "lens.npy", tmp_path / "case" / "in4.npy")
    expect_exit_1(atbx, case, "outside the case file's folder")
    os.remove(tmp_path / "case" / "in4.npy")
    os.rename(tmp_path / "lens.npy", tmp_path / "case" / "lens.npy")
    os.symlink("lens.npy", tmp_path / "case" / "in4.npy")  # inside: fine
    assert run(atbx, "run", case).returncode == 0


def test_nul_in_input_name(atbx, tmp_path):
    case = decode_case(tmp_path)
    edit_case(case, lambda c: c["inputs"][4].update(file="in4.npy\u0000.txt"))
    expect_exit_1(atbx, case, "holds a NUL byte")


@pytest.mark.parametrize("name", ["../escaped.npy", "ABSOLUTE", "sub/out.npy", "out.npy\u0000x", ".", "..", "",
                                  "x" * 256])
def test_output_names_that_leave_the_out_folder(atbx, tmp_path, name):
    target = tmp_path / "escaped.npy"
    if name == "ABSOLUTE":
        name = str(target)
    case = decode_case(tmp_path / "case")
    out = tmp_path / "case" / "results"
    os.makedirs(out / "sub")
    edit_case(case, lambda c: c["outputs"][0].update(file=name))
    for command in ("run", "check"):
        result = run(atbx, command, case, *(["--out", str(out)] if command == "run" else []))
        assert result.returncode == 1, result.stderr
        assert "must be a plain file name" in result.stderr
    assert not target.exists()
    assert sorted(os.listdir(out)) == ["sub"] and os.listdir(out / "sub") == []


@pytest.mark.parametrize("kind", ["symlink", "folder", "fifo"])
def test_output_target_that_is_not_a_regular_file(atbx, tmp_path, kind):
    case = decode_case(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    if kind == "symlink":
        os.symlink(victim, tmp_path / "out.npy")
    elif kind == "folder":
        os.mkdir(tmp_path / "out.npy")
    else:
        os.mkfifo(tmp_path / "out.npy")
    expect_exit_1(atbx, case, "is not a regular file")
    assert victim.read_text() == "keep me"
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".atbx")]


def test_device_as_input_is_refused(atbx, tmp_path):
    case = decode_case(tmp_path)
    edit_case(case, lambda c: c["inputs"][4].update(file="/dev/zero"))
    expect_exit_1(atbx, case, "not a regular file", "--allow-outside")


# ---- outputs all or nothing ----

def rac_case(directory, value_head_size):
    """A ReshapeAndCache case whose two outputs differ in size: keyCache 15 KB, valueCache ~32 bytes/slot x dv."""
    rng = np.random.default_rng(9)
    tokens, heads, dk, block_size, num_blocks = 5, 5, 24, 7, 9
    inputs = [Tensor(rng.uniform(-1, 1, (tokens, heads, dk)), "float16"),
              Tensor(rng.uniform(-1, 1, (tokens, heads, value_head_size)), "float16"),
              Tensor(rng.uniform(-1, 1, (num_blocks, block_size, heads, dk)), "float16"),
              Tensor(rng.uniform(-1, 1, (num_blocks, block_size, heads, value_head_size)), "float16"),
              Tensor(np.array([3, 10, 17, 40, 62]), "int32")]
    return write_case(directory, "ReshapeAndCache", {}, inputs, ["outK.npy", "outV.npy"])


def test_a_run_failing_mid_way_leaves_nothing(atbx, tmp_path):
    case = rac_case(tmp_path, 800)  # keyCache output ~15 KB, valueCache ~504 KB
    out = tmp_path / "results"
    os.mkdir(out)
    (out / "outK.npy").write_bytes(b"old")

    def limit_file_size():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (100 * 1024, 100 * 1024))

    result = subprocess.run([atbx, "run", case, "--out", str(out)], capture_output=True, text=True,
                            preexec_fn=limit_file_size)
    assert result.returncode == 1, result.stderr
    assert "write error" in result.stderr
    assert sorted(os.listdir(out)) == ["outK.npy"] and (out / "outK.npy").read_bytes() == b"old"
    assert run(atbx, "run", case, "--out", str(out)).returncode == 0
    assert sorted(os.listdir(out)) == ["outK.npy", "outV.npy"]


def test_concurrent_runs_into_one_folder(atbx, tmp_path):
    case = rac_case(tmp_path, 40)
    out = tmp_path / "results"
    for _ in range(3):
        runs = [subprocess.Popen([atbx, "run", case, "--out", str(out), "--backend", "ref"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(4)]
        for child in runs:
            _, stderr = child.communicate(timeout=60)
            assert child.returncode == 0, stderr
    assert sorted(os.listdir(out)) == ["outK.npy", "outV.npy"]
    assert np.load(out / "outV.npy").shape == (9, 7, 5, 40)


def test_duplicate_output_names(atbx, tmp_path):
    case = rac_case(tmp_path, 40)
    edit_case(case, lambda c: c["outputs"][1].update(file="outK.npy"))
    expect_exit_1(atbx, case, "listed twice")


def test_check_validates_the_outputs_list(atbx, tmp_path):
    case = decode_case(tmp_path)
    edit_case(case, lambda c: c["outputs"].append({"file": "out2.npy"}))
    result = run(atbx, "check", case)
    assert result.returncode == 1 and "lists 2 files" in result.stderr


# ---- big files: headers first, data mapped ----

def test_junk_file_is_rejected_without_reading_it(atbx, tmp_path):
    case = decode_case(tmp_path)
    with open(tmp_path / "in1.npy", "wb") as f:
        f.write(b"JUNK")
        f.truncate(512 * MIB)
    code, rss, seconds = run_with_rss([atbx, "run", case])
    assert code == 1
    assert rss < 64 * MIB, rss
    assert seconds < 10


def test_header_promising_more_than_the_file_holds(atbx, tmp_path):
    case = decode_case(tmp_path)
    sparse_npy(tmp_path / "in1.npy", (4096, 128, 2, 16), np.float16)
    with open(tmp_path / "in1.npy", "r+b") as f:
        f.truncate(512 * MIB)  # the header says 32 MiB: trailing bytes
    result = expect_exit_1(atbx, case, "trailing bytes")
    code, rss, _ = run_with_rss([atbx, "check", case])
    assert code == 1 and rss < 64 * MIB, rss


def large_decode_case(directory, num_blocks):
    """PagedAttention decode over sparse caches of num_blocks x 128 x 8 x 128 float16 (num_blocks / 4 MiB)."""
    rng = np.random.default_rng(4)
    os.makedirs(directory)
    np.save(directory / "q.npy", rng.uniform(-1, 1, (4, 32, 128)).astype(np.float16))
    sparse_npy(directory / "k.npy", (num_blocks, 128, 8, 128), np.float16)
    sparse_npy(directory / "v.npy", (num_blocks, 128, 8, 128), np.float16)
    np.save(directory / "table.npy", rng.choice(num_blocks, (4, 2), replace=False).astype(np.int32))
    np.save(directory / "lens.npy", np.array([200, 31, 7, 129], dtype=np.int32))
    case = {"op": "PagedAttention", "param": {"headNum": 32, "kvHeadNum": 8, "qkScale": 0.0884},
            "inputs": [{"file": "q.npy", "dtype": "float16"}, {"file": "k.npy", "dtype": "float16"},
                       {"file": "v.npy", "dtype": "float16"}, {"file": "table.npy", "dtype": "int32"},
                       {"file": "lens.npy", "dtype": "int32"}],
            "outputs": [{"file": "out.npy"}]}
    with open(directory / "case.json", "w") as f:
        json.dump(case, f)
    return str(directory / "case.json")


def test_check_and_run_read_only_what_they_use(atbx, tmp_path):
    """Two sparse 2 GiB caches: check reads none of them, run only the 8 blocks the table names."""
    case = large_decode_case(tmp_path / "big", 8192)
    code, rss, seconds = run_with_rss([atbx, "check", case])
    assert code == 0
    assert rss < 64 * MIB, rss
    assert seconds < 10
    code, rss, seconds = run_with_rss([atbx, "run", case, "--threads", "1"])
    assert code == 0
    assert rss < 128 * MIB, rss
    assert np.isfinite(np.load(tmp_path / "big" / "out.npy")).all()


def test_check_does_not_copy_caches_updated_in_place(atbx, tmp_path):
    """ReshapeAndCache updates its 2 GiB caches in place: run copies them, check has no reason to."""
    rng = np.random.default_rng(6)
    np.save(tmp_path / "key.npy", rng.uniform(-1, 1, (3, 8, 128)).astype(np.float16))
    np.save(tmp_path / "value.npy", rng.uniform(-1, 1, (3, 8, 128)).astype(np.float16))
    sparse_npy(tmp_path / "kc.npy", (8192, 128, 8, 128), np.float16)
    sparse_npy(tmp_path / "vc.npy", (8192, 128, 8, 128), np.float16)
    np.save(tmp_path / "slots.npy", np.array([5, 70000, 1048575], dtype=np.int32))
    case = {"op": "ReshapeAndCache", "inputs": [{"file": name, "dtype": dtype} for name, dtype in [
        ("key.npy", "float16"), ("value.npy", "float16"), ("kc.npy", "float16"), ("vc.npy", "float16"),
        ("slots.npy", "int32")]], "outputs": [{"file": "outK.npy"}, {"file": "outV.npy"}]}
    with open(tmp_path / "case.json", "w") as f:
        json.dump(case, f)
    code, rss, seconds = run_with_rss([atbx, "check", str(tmp_path / "case.json")])
    assert code == 0
    assert rss < 64 * MIB, rss
    assert seconds < 10


# ---- the dtype and format vocabulary: ATB's rejections are rule violations ----

MASK_NORM = 1


def masked_decode_case(directory, mask_dtype):
    case = decode_case(directory, maskType=MASK_NORM)
    mask = np.zeros((2, 1, 20), dtype=bool if mask_dtype == "bool" else np.float16)
    np.save(directory / "mask.npy", mask)
    edit_case(case, lambda c: c["inputs"].append({"file": "mask.npy", "dtype": mask_dtype}))
    return case


def test_bool_mask_is_a_rule_violation(atbx, tmp_path):
    case = masked_decode_case(tmp_path, "bool")
    for command in ("run", "check"):
        result = run(atbx, command, case)
        assert result.returncode == 2, result.stderr
        assert "violated pa.dtype.mask (ERROR_INVALID_TENSOR_INI_MATCH)" in result.stderr
        assert "got mask bool ND" in result.stderr
    assert outputs_in(tmp_path) == []


def test_bool_mask_needs_a_bool_npy(atbx, tmp_path):
    case = masked_decode_case(tmp_path, "float16")
    edit_case(case, lambda c: c["inputs"][5].update(dtype="bool"))
    expect_exit_1(atbx, case, "the case file says bool (.npy descr |b1)")


NEVER_ACCEPTED = {"int16": np.int16, "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32,
                  "float64": np.float64, "complex64": np.complex64, "complex128": np.complex128, "bool": bool,
                  "hifloat8": np.uint8, "float8_e4m3fn": np.uint8, "int4": np.uint8, "float4_e2m1": np.uint8,
                  "complex32": np.uint32, "string": np.uint8}


@pytest.mark.parametrize("dtype", sorted(NEVER_ACCEPTED))
def test_every_atb_dtype_reaches_the_rules(atbx, tmp_path, dtype):
    case = decode_case(tmp_path)
    np.save(tmp_path / "in0.npy", np.zeros((2, 4, 16), dtype=NEVER_ACCEPTED[dtype]))
    edit_case(case, lambda c: c["inputs"][0].update(dtype=dtype))
    result = run(atbx, "check", case)
    assert result.returncode == 2, result.stderr
    assert "violated pa.dtype.query" in result.stderr and f"got query {dtype} ND" in result.stderr


@pytest.mark.parametrize("fmt", ["NC1HWC0", "FRACTAL_Z", "NCHW", "NHWC", "NDC1HWC0", "FRACTAL_Z_3D", "NCL",
                                 "FRACTAL_NZ_C0_16"])
def test_every_atb_format_reaches_the_rules(atbx, tmp_path, fmt):
    case = decode_case(tmp_path)
    edit_case(case, lambda c: c["inputs"][1].update(format=fmt))
    result = run(atbx, "check", case)
    assert result.returncode == 2, result.stderr
    assert "violated pa.dtype.cache" in result.stderr and f"float16 {fmt}" in result.stderr
    edit_case(case, lambda c: (c["inputs"][1].update(format="ND"), c["inputs"][0].update(format=fmt)))
    result = run(atbx, "check", case)
    assert result.returncode == 2 and "violated pa.dtype.query" in result.stderr, result.stderr


# ---- command line ----

@pytest.mark.parametrize("threads,code", [("1025", 1), ("-1", 1), ("99999999999", 1), ("1024", 0), ("0", 0)])
def test_threads_bounded(atbx, tmp_path, threads, code):
    result = run(atbx, "run", decode_case(tmp_path), "--threads", threads)
    assert result.returncode == code, result.stderr
    if code:
        assert "--threads" in result.stderr and result.stderr.count("\n") == 1, result.stderr


@pytest.mark.parametrize("args", [[], ["run"], ["frobnicate"], ["run", "x.json", "--platform", "a2\x1b[2K\nviolated"],
                                  ["check", "x.json", "--threads", "2"], ["demo", "--iterations", "0"]])
def test_usage_errors_are_one_escaped_line(atbx, args):
    result = run(atbx, *args)
    assert result.returncode == 1
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    assert "\x1b" not in result.stderr
