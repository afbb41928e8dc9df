"""SelfAttention case files for the golden tests: sharp random data, running `atbx run --backend ref` on a case,
and reading back its outputs. Nothing here computes attention: the golden is golden_sa.py.
"""
import os

import numpy as np

from atbx_case import Tensor, assert_precision, cpu_paths, read_output, run, run_on_cpu_path, write_case

# calcType, maskType, kernelType, kvcacheCfg values of SelfAttentionParam.
UNDEFINED, ENCODER, DECODER, PA_ENCODER, PREFIX_ENCODER = range(5)
(MASK_NONE, MASK_NORM, MASK_ALIBI, MASK_NORM_COMPRESS, MASK_ALIBI_COMPRESS, MASK_ALIBI_COMPRESS_SQRT,
 MASK_ALIBI_COMPRESS_LEFT_ALIGN, MASK_SWA_NORM, MASK_SWA_COMPRESS, MASK_CAUSAL) = range(10)
HIGH_PRECISION = 1
BYPASS = 1
LONG = os.environ.get("ATBX_LONG_TESTS") == "1"


def sharp(rng, shape, dtype, scale=2.5):
    """Queries and keys from U(-scale, scale): logits of a few units, a softmax far from uniform."""
    return Tensor(rng.uniform(-scale, scale, shape), dtype)


def values(rng, shape, dtype):
    return Tensor(rng.uniform(-1, 1, shape), dtype)


def int32(values_):
    return Tensor(np.asarray(values_, dtype=np.int32), "int32")


def run_case(atbx, directory, param, inputs, outputs, platform=None):
    """Writes the case, runs it on the reference backend, returns the output files' values (float64).

    outputs: [(file name, dtype)]. Also checks that every output value is finite.
    """
    case = write_case(directory, "SelfAttention", param, inputs, [name for name, _ in outputs], platform)
    result = run(atbx, "run", case, "--backend", "ref")
    assert result.returncode == 0, result.stderr
    read = [read_output(os.path.join(directory, name), dtype) for name, dtype in outputs]
    assert np.isfinite(read[0]).all(), "attnOut holds non-finite values"
    # Every CPU path this machine has meets the precision standard against the reference backend's attnOut.
    name, dtype = outputs[0]
    cpu_dir = os.path.join(directory, "cpu")
    for path in cpu_paths(atbx):
        result = run_on_cpu_path(atbx, path, case, "--out", cpu_dir)
        assert result.returncode == 0, f"{path}: {result.stderr}"
        assert_precision(read_output(os.path.join(cpu_dir, name), dtype), read[0], dtype, 1, 1 << 20)
    return read


def raw_output(directory, name):
    """An output file's raw array (bfloat16 as bits), for exact comparisons."""
    return np.load(os.path.join(directory, name))
