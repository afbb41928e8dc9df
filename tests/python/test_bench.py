"""`atbx bench decode|prefill|features --smoke`: the JSON schema, and figures consistent with the shapes.

Every expected byte and FLOP count is worked out here from the shape the row names, not read from the tool. No
performance is asserted: only that the figures are positive and agree with each other.
"""
import contextlib
import json
import math
import os
import pathlib
import re
import signal
import subprocess
import sys
import textwrap
import time

import pytest

# Small buffers and short timing: these tests check the harness, not the machine.
FAST = ["--smoke", "--threads", "1", "--ceiling-mib", "16", "--cold-mib", "1", "--row-seconds", "0.02"]
MACHINE_KEYS = {"cpu", "isa", "threads", "read_gbs", "fma_gflops", "amx_gflops", "bf16_dot_gflops", "int16_dot_gflops",
                "int16_pair_gflops", "pages", "transparent_huge_pages"}
ROW_KEYS = {"op", "shape", "dtype", "kernel", "threads", "cold", "ms", "setup_ms", "kv_gbs", "gflops",
            "roofline_pct", "ceiling_gbs", "peak_gflops", "peer"}
ELEMENT_BYTES = {"fp16": 2, "bf16": 2, "int8": 1}
# How long the dying peer's child holds the peer's output open: longer than a smoke run under the sanitizers.
HOLDER_SECONDS = 120
OPENVINO_PYTHON = pathlib.Path(__file__).resolve().parents[2] / ".venv-openvino" / "bin" / "python"


def bench(atbx, tmp_path, workload, *extra):
    out = tmp_path / f"{workload}.json"
    result = subprocess.run([atbx, "bench", workload, *FAST, "--json", str(out), *extra],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    with open(out) as f:
        return json.load(f), result


def family(shape):
    """(heads, kv heads, K head size, V head size, MLA) from a family name such as "smoke-gqa4/2-d64"."""
    name = shape.split()[0]
    mla = re.search(r"mla(\d+)-d(\d+)/(\d+)", name)
    if mla:
        heads, d, dv = map(int, mla.groups())
        latent = d == 576  # the absorbed form: one latent kv head, V its first dv channels
        return heads, 1 if latent else heads, d, dv, latent
    heads, kv, d, dv = re.search(r"(?:gqa|mha)(\d+)/(\d+)-d(\d+)(?:/(\d+))?", name).groups()
    return int(heads), int(kv), int(d), int(dv or d), False


def field(shape, prefix):
    return int(re.search(rf"\b{prefix}(\d+)", shape).group(1))


def decode_work(row):
    """(K/V bytes read, FLOPs) of one decode step from the row's shape."""
    heads, kv, d, dv, mla = family(row["shape"])
    batch, context, q = field(row["shape"], "b"), field(row["shape"], "ctx"), field(row["shape"], "q")
    if "[skipped batches]" in row["shape"]:  # batchRunStatus 0 for every other sequence
        batch = (batch + 1) // 2
    channels = kv * (d if mla else d + dv)
    kv_bytes = batch * context * channels * ELEMENT_BYTES[row["dtype"]]
    visible = batch * sum(context - q + i + 1 for i in range(q))
    return kv_bytes, 2 * heads * (d + dv) * visible


def prefill_work(row):
    """(K/V bytes read, FLOPs counting only the keys the mask leaves visible) of one prefill call."""
    element = ELEMENT_BYTES[row["dtype"]]
    shape = row["shape"]
    if row["op"] == "ReshapeAndCache":  # rows read from key and value, then written: "kv2-d64 nd t37 bs16"
        kv, d = map(int, re.search(r"kv(\d+)-d(\d+)", shape).groups())
        tokens, mode = field(shape, "t"), shape.split()[1]
        caches = 1 if mode == "key-only" else 2
        read = written = tokens
        if mode == "kvhead":  # each head's last w tokens, to w rows
            read = written = field(shape, "w")
        if mode == "kvhead-rope":  # every token read; the w tokens of the window to one row
            written = tokens - field(shape, "w") + 1
        return caches * (read + written) * kv * d * element, 0
    heads, kv, d, dv, mla = family(shape)
    prefix = re.search(r"prefix(\d+)\+([\d+]+)", shape)
    window = re.search(r"swa(\d+) s(\d+)", shape)
    dense = re.search(r"dense s(\d+)", shape)
    if prefix:
        cached, lens, limit = int(prefix.group(1)), [int(x) for x in prefix.group(2).split("+")], None
    elif window:
        cached, lens, limit = 0, [int(window.group(2))], int(window.group(1))
    elif dense:
        cached, lens, limit = 0, [int(dense.group(1))], None
    else:
        # causal: the compressed tile (also with int8 QKV), the full mask ("fullmask") or an ALiBi mask, the
        # same visible keys
        lengths = re.search(r"(?:causal|causal-qkv-int8|fullmask|alibi) s([\d+]+)", shape).group(1)
        cached, lens, limit = 0, [int(x) for x in lengths.split("+")], None
    pairs = 0
    for length in lens:
        for i in range(length):
            keys = length if dense else cached + i + 1  # dense: every key of the sequence
            pairs += min(keys, limit) if limit else keys
    channels = kv * (d if mla else d + dv)
    kv_bytes = (sum(lens) + len(lens) * cached) * channels * element
    return kv_bytes, 2 * heads * (d + dv) * pairs


def expected_peak(machine, row):
    """The compute ceiling a row's kernel runs against: AMX for AMX kernels; on cpu:avx512 the dot products the
    kernel takes bf16 and int8 rows on, where the CPU has them; on cpu:avx2 int8 rows the higher of its FMA peak
    and the int16 pair peak; else the FMA peak of the kernel's vector path."""
    kernel, dtype = row["kernel"], row["dtype"]
    if "amx" in kernel and machine["amx_gflops"] is not None:
        return machine["amx_gflops"]
    path = "avx512" if "avx512" in kernel else "avx2" if "avx2" in kernel else "sse2"
    if path == "avx512" and dtype == "bf16" and machine["bf16_dot_gflops"] is not None:
        return machine["bf16_dot_gflops"]
    if path == "avx512" and dtype == "int8" and machine["int16_dot_gflops"] is not None:
        return machine["int16_dot_gflops"]
    if path == "avx2" and dtype == "int8" and machine["int16_pair_gflops"] is not None:
        return max(machine["fma_gflops_by_path"][path], machine["int16_pair_gflops"])
    return machine["fma_gflops_by_path"][path]


def check_measurements(machine):
    """The ceilings were measured before and after the rows, and the rows are compared with the higher of
    each."""
    first, second = machine["measurements"]
    for key in ("read_gbs", "copy_gbs", "fma_gflops", "amx_gflops", "bf16_dot_gflops", "int16_dot_gflops",
                "int16_pair_gflops"):
        values = [m[key] for m in (first, second) if m[key] is not None]
        assert machine[key] == (max(values) if values else None), key
    for path, peak in machine["fma_gflops_by_path"].items():
        assert peak == max(first["fma_gflops_by_path"][path], second["fma_gflops_by_path"][path]), path


def check_document(doc, work):
    machine = doc["machine"]
    assert MACHINE_KEYS <= machine.keys()
    assert machine["threads"] == 1
    assert machine["read_gbs"] > 0 and machine["fma_gflops"] > 0
    assert machine["amx_gflops"] is None or machine["amx_gflops"] > 0
    assert machine["bf16_dot_gflops"] is None or machine["bf16_dot_gflops"] > 0
    assert machine["int16_dot_gflops"] is None or machine["int16_dot_gflops"] > 0
    assert machine["int16_pair_gflops"] is None or machine["int16_pair_gflops"] > 0
    assert machine["transparent_huge_pages"] in {"always", "madvise", "never", "unknown"}
    check_measurements(machine)
    assert doc["rows"], doc.get("skipped")
    for row in doc["rows"]:
        assert ROW_KEYS <= row.keys(), row
        assert row["threads"] == 1 and row["kernel"] and row["peer"] is None
        assert row["ms"] > 0 and row["setup_ms"] > 0 and row["ceiling_gbs"] > 0 and row["peak_gflops"] > 0
        assert row["peak_gflops"] == pytest.approx(expected_peak(machine, row), rel=1e-9), row
        kv_bytes, flops = work(row)
        seconds = row["ms"] / 1e3
        assert row["kv_bytes"] == kv_bytes, row
        assert row["flops"] == pytest.approx(flops), row
        assert row["kv_gbs"] == pytest.approx(kv_bytes / seconds / 1e9, rel=1e-9)
        assert row["gflops"] == pytest.approx(flops / seconds / 1e9, rel=1e-9, abs=1e-12)
        assert row["bytes"] >= kv_bytes
        assert row["rotated_bytes"] == row["layers"] * kv_bytes and (row["cold"] or row["layers"] == 1)
        roofline = max(row["bytes"] / (row["ceiling_gbs"] * 1e9), flops / (row["peak_gflops"] * 1e9))
        assert row["roofline_pct"] == pytest.approx(100 * roofline / seconds, rel=1e-9)
        assert row["limit"] == ("memory" if row["bytes"] / row["ceiling_gbs"] >= flops / row["peak_gflops"]
                                else "compute")


def test_decode_smoke(atbx, tmp_path):
    doc, result = bench(atbx, tmp_path, "decode")
    check_document(doc, decode_work)
    kinds = {(row["dtype"], row["cold"], "q4" in row["shape"], "mla" in row["shape"]) for row in doc["rows"]}
    assert ("int8", True, False, False) in kinds and ("bf16", False, True, False) in kinds
    assert any(mla for *_, mla in kinds)
    assert "[4/4]" in result.stderr  # the progress report
    assert "| PagedAttention |" in result.stdout
    assert doc["machine"]["pages"] == "default"
    assert "the allocator's pages (transparent huge pages: " in result.stdout


def test_features_smoke(atbx, tmp_path):
    """Every PagedAttention feature runs on a CPU path (none refused), and each row's cost per KV byte is
    set against the main row's."""
    doc, result = bench(atbx, tmp_path, "features", "--backend", "cpu")
    assert doc["skipped"] == []
    check_document(doc, decode_work)
    rows = {row["feature"]: row for row in doc["rows"]}
    assert len(rows) == len(doc["rows"]) == 22
    assert {"main", "NZ caches", "KV-head compression, razor offsets", "QKV int8 online", "MLA",
            "MLA, QKV int8 online"} <= rows.keys()
    main = rows["main"]
    assert main["dtype"] == "fp16" and main["kv_byte_time_vs_main"] == 1.0
    for name, row in rows.items():
        assert row["kernel"].startswith("cpu:"), row
        expected = (row["ms"] / row["kv_bytes"]) / (main["ms"] / main["kv_bytes"])
        assert row["kv_byte_time_vs_main"] == pytest.approx(expected, rel=1e-9), name
        assert f"| {name} | {row['dtype']} |" in result.stdout


def test_prefill_smoke(atbx, tmp_path):
    doc, _ = bench(atbx, tmp_path, "prefill")
    check_document(doc, prefill_work)
    ops = {row["op"] for row in doc["rows"]}
    assert ops == {"SelfAttention", "ReshapeAndCache"}
    assert "copy_gbs" in doc["machine"]


def test_huge_pages_are_asked_for_on_request(atbx, tmp_path):
    doc, result = bench(atbx, tmp_path, "decode", "--filter", "int8", "--huge-pages")
    check_document(doc, decode_work)
    assert doc["machine"]["pages"] == "huge"
    assert "2 MiB pages asked for" in result.stdout


def test_filter_selects_rows(atbx, tmp_path):
    doc, _ = bench(atbx, tmp_path, "decode", "--filter", "int8")
    assert [row["dtype"] for row in doc["rows"]] == ["int8"]


def test_rows_that_do_not_fit_are_skipped_with_the_reason(atbx, tmp_path):
    doc, _ = bench(atbx, tmp_path, "decode", "--filter", "int8", "--memory-gib", "0.00001")
    assert doc["rows"] == []
    assert "memory bound" in doc["skipped"][0]["reason"]


def test_unsupported_backend_is_skipped_with_the_rule(atbx, tmp_path):
    doc, _ = bench(atbx, tmp_path, "decode", "--filter", "int8", "--backend", "cpu")
    if doc["rows"]:
        assert doc["rows"][0]["kernel"].startswith("cpu:")  # a CPU path for int8 caches exists
    else:
        assert "dispatch.cpu.unsupported" in doc["skipped"][0]["reason"]


def test_torch_peer(atbx, tmp_path):
    pytest.importorskip("torch")
    doc, _ = bench(atbx, tmp_path, "decode", "--filter", "bf16", "--peer", "torch")
    peer = doc["rows"][0]["peer"]
    assert peer["name"].startswith("torch") and peer["ms"] > 0
    assert peer["kv_gbs"] == pytest.approx(doc["rows"][0]["kv_bytes"] / (peer["ms"] / 1e3) / 1e9, rel=1e-9)
    assert not math.isnan(peer["ms_by_dtype"]["fp32"])


def test_openvino_peer(atbx, tmp_path):
    if not OPENVINO_PYTHON.exists():
        pytest.skip("OpenVINO is not installed (scripts/bench_setup.sh installs it into .venv-openvino)")
    doc, _ = bench(atbx, tmp_path, "decode", "--filter", "bf16|int8", "--peer", "openvino")
    for row in doc["rows"]:
        peer = row["peer"]
        assert peer["name"].startswith("openvino") and peer["ms"] > 0
        assert peer["kv_gbs"] == pytest.approx(row["kv_bytes"] / (peer["ms"] / 1e3) / 1e9, rel=1e-9)
        tried = {"u8/f32", "u8/bf16"} if row["dtype"] == "int8" else {"f16", "bf16"}
        assert peer["ms_by_dtype"].keys() == tried and peer["dtype"] in tried
    doc, result = bench(atbx, tmp_path, "prefill", "--filter", "causal|dense|prefix", "--peer", "openvino")
    peers = {row["shape"].split()[1]: row["peer"] for row in doc["rows"]}
    assert peers["dense"] is None and "its PagedAttention is causal" in result.stderr
    assert peers["causal"]["ms"] > 0 and peers["prefix128+20"]["ms"] > 0  # two sequences; a cached prefix


def test_a_peer_that_dies_is_reported_not_waited_on(atbx, tmp_path):
    """A peer killed mid-row while a process it started still holds its output open: the row gets no peer
    figure and the run goes on, well before that process ends (a read waiting for the end of the output would
    wait as long as it lives). The process keeps the peer's output, not the stderr this test reads."""
    script = tmp_path / "dying_peer.py"
    holder = tmp_path / "holder.pid"
    script.write_text(textwrap.dedent(f"""
        import json, os, pathlib, signal, subprocess, sys
        holder = subprocess.Popen(["sleep", "{HOLDER_SECONDS}"], stderr=subprocess.DEVNULL)
        pathlib.Path({str(holder)!r}).write_text(str(holder.pid))
        print(json.dumps({{"name": "dying"}}), flush=True)
        sys.stdin.readline()
        os.kill(os.getpid(), signal.SIGSEGV)
    """))
    started = time.monotonic()
    try:
        doc, result = bench(atbx, tmp_path, "decode", "--filter", "bf16|int8", "--peer", "torch", "--peer-script",
                            str(script), "--peer-python", sys.executable)
    finally:
        if holder.exists():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(holder.read_text()), signal.SIGKILL)
    assert time.monotonic() - started < HOLDER_SECONDS / 2
    assert len(doc["rows"]) == 2 and all(row["peer"] is None for row in doc["rows"])
    assert "the peer exited without answering (killed by signal 11)" in result.stderr
