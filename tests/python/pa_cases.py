"""PagedAttention calls for the golden tests: random caches, block tables, masks and the other inputs a param asks
for, written as case files in ATB's input order (docs/spec/paged_attention.md 2.1), run through `atbx run` and compared
with golden_pa under the precision standard. Test data only: the math lives in golden_pa.py.

Data are sharp (docs/testing.md): queries and keys from U(-3, 3), values from U(-1, 1); int8 caches hold integers
in [-5, 5].
"""
import math
import os
from dataclasses import dataclass

import numpy as np

from atbx_case import Tensor, assert_precision, cpu_paths, read_output, run, run_on_cpu_path, write_case
from golden_pa import paged_attention

NORM, ALIBI, SPEC, MASK_FREE, NORM_COMPRESS = 1, 2, 3, 4, 5
DEQUANT, QKV_OFFLINE, QKV_ONLINE = 1, 2, 3
LONG = os.environ.get("ATBX_LONG_TESTS") == "1"


def input_order(param):
    """ATB's input names for the param (docs/spec/paged_attention.md 2.1)."""
    names = ["query", "keyCache"]
    if not param.get("mlaVHeadSize"):
        names.append("valueCache")
    names += ["blockTables", "contextLens"]
    if param.get("maskType", 0):
        names.append("mask")
    if param.get("batchRunStatusEnable"):
        names.append("batchRunStatus")
    quant = param.get("quantType", 0)
    if quant == DEQUANT:
        names += ["kDescale", "kOffset", "vDescale", "vOffset"] if param.get("hasQuantOffset") else \
            ["kDescale", "vDescale"]
    elif quant in (QKV_OFFLINE, QKV_ONLINE):
        names += ["kDescale", "vDescale"]
    if param.get("calcType", 0) == 1:
        names.append("qSeqLen")
    if param.get("compressType", 0) == 2:
        names.append("razorOffset")
    if quant == QKV_OFFLINE:
        names.append("pScale")
    if param.get("scaleType", 0) == 1:
        names.append("logN")
    return names


@dataclass
class Shape:
    """What a mask builder needs to know about the call."""
    batch: int
    heads: int
    kv_heads: int
    lens: list
    q_lens: list
    tokens: int
    dtype: str
    rng: np.random.Generator


@dataclass
class PaCall:
    param: dict
    tensors: dict
    platform: str = "atlas-a2"
    out_dtype: str = "float16"
    head_dim_v: int = 0
    max_context: int = 0

    def execute(self, atbx, directory):
        """Runs the case on the reference backend; returns the finished process."""
        inputs = [self.tensors[name] for name in input_order(self.param)]
        case = write_case(directory, "PagedAttention", self.param, inputs, ["out.npy"], platform=self.platform)
        return run(atbx, "run", case, "--backend", "ref")

    def run(self, atbx, directory):
        """Runs the case on the reference backend; returns the output as float64."""
        result = self.execute(atbx, directory)
        assert result.returncode == 0, result.stderr
        return read_output(os.path.join(directory, "out.npy"), self.out_dtype)

    def golden(self, param=None, tensors=None):
        """The golden output; `param` and `tensors` override fields and inputs (for tests showing that a
        comparison can fail)."""
        return paged_attention({**self.param, **(param or {})}, {**self.tensors, **(tensors or {})})

    def check(self, out, golden=None):
        """Written elements meet the precision standard; elements no batch writes keep the output's initial 0."""
        golden = self.golden() if golden is None else golden
        written = ~np.isnan(golden)
        assert np.all(out[~written] == 0.0), "an element of a skipped row was written"
        assert written.any()
        assert_precision(out[written], golden[written], self.out_dtype, self.head_dim_v, self.max_context)


def blocks_for(length, block_size):
    return (length + block_size - 1) // block_size


def block_table(lens, block_size, num_blocks, rng, repeats):
    """Distinct shuffled blocks per sequence, or (repeats) any block for every entry as ATB's tests draw them;
    entries past a sequence's blocks hold random valid ids."""
    width = max(1, max(blocks_for(n, block_size) for n in lens))
    table = rng.integers(0, num_blocks, (len(lens), width)).astype(np.int32)
    if not repeats:
        ids = rng.permutation(num_blocks)
        used = 0
        for b, n in enumerate(lens):
            count = blocks_for(n, block_size)
            table[b, :count] = ids[used:used + count]
            used += count
    return table


def nd_to_nz(nd):
    """ND [N, R, C] (C a multiple of 16) -> FRACTAL_NZ [N, C/16, R, 16]."""
    n, rows, cols = nd.shape
    return np.ascontiguousarray(nd.reshape(n, rows, cols // 16, 16).transpose(0, 2, 1, 3))


def cache_tensor(values, layout, dtype):
    """values [NB, BS, Hc, D] as a BSND, BNSD or NZ ([NB, Hc*D/16, BS, 16]) cache tensor."""
    if layout == "BNSD":
        return Tensor(np.ascontiguousarray(values.transpose(0, 2, 1, 3)), dtype)
    if layout == "NZ":
        nb, bs, heads, d = values.shape
        return Tensor(nd_to_nz(values.reshape(nb, bs, heads * d)), dtype, "FRACTAL_NZ")
    return Tensor(values, dtype)


def random_cache(rng, num_blocks, block_size, heads, head_dim, dtype, low, high):
    if dtype == "int8":
        return rng.integers(-5, 6, (num_blocks, block_size, heads, head_dim)).astype(np.float64)
    return rng.uniform(low, high, (num_blocks, block_size, heads, head_dim))


def int64_descale(values):
    """fp32 descales in ATB's int64 form: the fp32 bits zero-extended."""
    return np.asarray(values, dtype=np.float32).view(np.uint32).astype(np.int64)


def build(rng, heads, kv_heads, head_dim, block_size, lens, dtype="float16", *, head_dim_v=None, q_lens=None,
          layout="BSND", platform="atlas-a2", mask=None, quant=0, offsets=False, descale="float32",
          compress=0, mla_v=0, status=None, logn=False, q_scale=0.0, qk_scale=None, extra_blocks=3,
          repeats=False, out_dtype=None, razor=False, spare_rows=0):
    """A valid PagedAttention call. lens: contextLens (B, or B*Hk under compression); q_lens: qSeqLen (SPEC);
    mask: a builder (Shape -> (maskType, Tensor)); quant: quantType; status: batchRunStatus."""
    head_dim_v = mla_v or head_dim_v or head_dim
    compressed = compress != 0
    spec = q_lens is not None
    param = {"headNum": heads, "kvHeadNum": kv_heads,
             "qkScale": qk_scale if qk_scale is not None else 1 / math.sqrt(head_dim)}
    if layout == "BNSD":
        param["inputLayout"] = 1
    if spec:
        param["calcType"] = 1
    if compress:
        param["compressType"] = compress
    if mla_v:
        param["mlaVHeadSize"] = mla_v
    if status is not None:
        param["batchRunStatusEnable"] = True
    if q_scale:
        param["qScale"] = q_scale
    qkv = quant in (QKV_OFFLINE, QKV_ONLINE)
    if quant:
        param["quantType"] = quant
    if quant == DEQUANT and offsets:
        param["hasQuantOffset"] = True
    if qkv:
        param["outDataType"] = 27 if out_dtype == "bfloat16" else 1
    if logn:
        param["scaleType"] = 1

    running = [n > 0 and (status is None or status[b] != 0) for b, n in enumerate(lens)]
    batch = len(lens) // kv_heads if compressed else len(lens)
    if compressed:
        tokens = batch
    else:
        tokens = sum((q_lens[b] if spec else 1) for b in range(len(lens)) if running[b])
    tokens += spare_rows
    cache_heads = 1 if compressed else kv_heads
    num_blocks = sum(blocks_for(n, block_size) for n in lens) + extra_blocks
    cache_dtype = "int8" if quant else dtype
    q_dtype = "int8" if qkv else dtype
    tensors = {}
    if qkv:
        tensors["query"] = Tensor(rng.integers(-5, 6, (tokens, heads, head_dim)), "int8")
    else:
        tensors["query"] = Tensor(rng.uniform(-3, 3, (tokens, heads, head_dim)), q_dtype)
    key = random_cache(rng, num_blocks, block_size, cache_heads, head_dim, cache_dtype, -3, 3)
    tensors["keyCache"] = cache_tensor(key, layout, cache_dtype)
    if not mla_v:
        value = random_cache(rng, num_blocks, block_size, cache_heads, head_dim_v, cache_dtype, -1, 1)
        tensors["valueCache"] = cache_tensor(value, layout, cache_dtype)
    tensors["blockTables"] = Tensor(block_table(lens, block_size, num_blocks, rng, repeats), "int32")
    tensors["contextLens"] = Tensor(np.array(lens), "int32")
    mask_dtype = (out_dtype or "float16") if qkv else dtype
    if mask is not None:
        shape = Shape(batch, heads, kv_heads, list(lens), list(q_lens or []), tokens, mask_dtype, rng)
        param["maskType"], tensors["mask"] = mask(shape)
    if status is not None:
        tensors["batchRunStatus"] = Tensor(np.array(status), "int32")
    if quant == DEQUANT:
        channels = kv_heads * head_dim
        for which, low in (("k", 0.1), ("v", -0.6)):
            scale = rng.uniform(low, 0.6, channels).astype(np.float32)
            tensors[which + "Descale"] = (Tensor(int64_descale(scale), "int64") if descale == "int64"
                                          else Tensor(scale, "float32"))
            if offsets:
                tensors[which + "Offset"] = Tensor(rng.integers(-20, 20, channels), "int32")
    if qkv:
        # kDescale * qkScale * (q8 . K8) has a spread of a few units: a sharp softmax.
        tensors["kDescale"] = Tensor(rng.uniform(0.15, 0.45, heads), "float32")
        tensors["vDescale"] = Tensor(rng.uniform(-5 / 127, 5 / 127, heads), "float32")
        if quant == QKV_OFFLINE:
            tensors["pScale"] = Tensor(rng.uniform(1, 127, heads), "float32")
    if spec:
        tensors["qSeqLen"] = Tensor(np.array(q_lens), "int32")
    if razor:
        # ATB's tests: 0 except one random slot in 80 % of the blocks, U(0, 20) there.
        offset = np.zeros((num_blocks, block_size))
        for p in range(num_blocks):
            if rng.random() < 0.8:
                offset[p, rng.integers(0, block_size)] = rng.uniform(0, 20)
        tensors["razorOffset"] = Tensor(offset, "float32")
    if logn:
        tensors["logN"] = Tensor(rng.uniform(1, 2, len(lens)), "float16" if layout == "NZ" else "float32")
    return PaCall(param, tensors, platform, out_dtype if qkv else dtype, head_dim_v, max(lens))


# ---- masks (docs/spec/paged_attention.md 3.5; values as ATB's tests draw them, or random for sharper indexing) ----

def norm3(s):
    """NORM [B, 1, S]: ATB's test pattern, -10000 in columns [0, b) of row b, plus small random values."""
    m = s.rng.uniform(-1, 0, (s.batch, 1, max(s.lens)))
    for b in range(s.batch):
        m[b, :, :b] = -10000
    return NORM, Tensor(m, s.dtype)


def norm_shared(s):
    """NORM [1, S'] with S' longer than the longest context."""
    return NORM, Tensor(s.rng.uniform(-4, 4, (1, max(s.lens) + 7)), s.dtype)


def norm_square(s):
    """NORM [S, S]: causal (-10000 above the diagonal), small random values elsewhere."""
    size = max(s.lens)
    m = s.rng.uniform(-1, 1, (size, size))
    m[np.triu_indices(size, 1)] = -10000
    return NORM, Tensor(m, s.dtype)


def norm_per_batch(s):
    """NORM [B, S, S] with SPEC: batch b's own plane, row i (DECISIONS 5); causal with random values."""
    size = max(s.lens)
    m = s.rng.uniform(-1, 1, (s.batch, size, size))
    m[:, np.triu_indices(size, 1)[0], np.triu_indices(size, 1)[1]] = -10000
    return NORM, Tensor(m, s.dtype)


def alibi_slopes(heads):
    """The standard ALiBi slopes: n = 2^floor(log2 H), m0 = 2^(-8/n), then odd powers of 2^(-4/n)."""
    n = 2 ** int(math.floor(math.log2(heads)))
    slopes = [2 ** (-8 / n * (i + 1)) for i in range(n)]
    slopes += [2 ** (-4 / n * (2 * i + 1)) for i in range(heads - n)]
    return np.array(slopes)


def alibi_bias(s, slopes):
    """[B, H, S]: slope_h * (j - L_b + 1) for j < L_b, 0 in the padding."""
    bias = np.zeros((s.batch, s.heads, max(s.lens)))
    for b in range(s.batch):
        n = s.lens[b]
        bias[b, :, :n] = slopes[:, None] * (np.arange(n) - n + 1)[None, :]
    return bias


def alibi4(s):
    """ALIBI [B, H, 1, S] with the standard slopes."""
    return ALIBI, Tensor(alibi_bias(s, alibi_slopes(s.heads))[:, :, None, :], s.dtype)


def alibi4_random_slopes(s):
    """ALIBI [B, H, 1, S] with slopes U(0, 1), as ATB's op tests draw them."""
    return ALIBI, Tensor(alibi_bias(s, s.rng.uniform(0, 1, s.heads))[:, :, None, :], s.dtype)


def alibi3(s):
    """ALIBI [H, 1, S], shared by the batches."""
    return ALIBI, Tensor(s.rng.uniform(-4, 4, (s.heads, 1, max(s.lens) + 3)), s.dtype)


def spec_triangle(s):
    """SPEC [T, S]: ATB's test pattern, 0 except a q_b x q_b upper triangle of -10000 at columns [L_b - q_b, L_b)."""
    m = np.zeros((s.tokens, max(s.lens)))
    row = 0
    for b, (n, q) in enumerate(zip(s.lens, s.q_lens)):
        if n == 0:
            continue
        for i in range(q):
            m[row + i, n - q + i + 1:n] = -10000
        row += q
    return SPEC, Tensor(m, s.dtype)


def spec_flags(s):
    """MLA + SPEC bf16 mask: 1 where hidden (causal), 0 where visible."""
    kind, tensor = spec_triangle(s)
    return kind, Tensor((tensor.values() != 0).astype(np.float64), s.dtype)


def nz_norm(s):
    """NORM NZ [B, S/16, 16, 16] (row 0 of batch b's plane is read)."""
    cols = -(-max(s.lens) // 16) * 16
    m = s.rng.uniform(-4, 4, (s.batch, 16, cols))
    return NORM, Tensor(nd_to_nz(m), "float16", "FRACTAL_NZ")


def nz_alibi(s):
    """ALIBI NZ [B*H, S/16, 16, 16] with the standard slopes in row 0 of each plane."""
    cols = -(-max(s.lens) // 16) * 16
    m = np.zeros((s.batch * s.heads, 16, cols))
    m[:, 0, :max(s.lens)] = alibi_bias(s, alibi_slopes(s.heads)).reshape(s.batch * s.heads, -1)
    return ALIBI, Tensor(nd_to_nz(m), "float16", "FRACTAL_NZ")


def nz_spec(s):
    """SPEC NZ [1, S/16, T_pad, 16]: -60000 above each batch's causal diagonal (ATB's 310P test)."""
    cols = -(-max(s.lens) // 16) * 16
    rows = -(-s.tokens // 16) * 16
    m = np.zeros((1, rows, cols))
    row = 0
    for n, q in zip(s.lens, s.q_lens):
        for i in range(q):
            m[0, row + i, n - q + i + 1:] = -60000
        row += q
    return SPEC, Tensor(nd_to_nz(m), "float16", "FRACTAL_NZ")


def mask_free_tile(s):
    """MASK_FREE: the NZ [1, 8, 128, 16] form of a 128x128 matrix, -60000 strictly above the diagonal."""
    m = np.triu(np.full((128, 128), -60000.0), 1)[None]
    return MASK_FREE, Tensor(nd_to_nz(m), "float16", "FRACTAL_NZ")


def norm_compress(s):
    """NORM_COMPRESS: ND [2048, 2048] fp16, -10000 strictly above the diagonal (the op-plugin's value)."""
    return NORM_COMPRESS, Tensor(np.triu(np.full((2048, 2048), -10000.0), 1), "float16")


def run_and_check(atbx, tmp_path, call):
    """The reference backend, then every CPU path this machine has, meet the precision standard."""
    out = call.run(atbx, tmp_path)
    call.check(out)
    case = os.path.join(tmp_path, "case.json")
    cpu_dir = os.path.join(tmp_path, "cpu")
    for path in cpu_paths(atbx):
        result = run_on_cpu_path(atbx, path, case, "--out", cpu_dir)
        assert result.returncode == 0, f"{path}: {result.stderr}"
        call.check(read_output(os.path.join(cpu_dir, "out.npy"), call.out_dtype))
    return out
