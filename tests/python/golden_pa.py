"""Independent NumPy golden for PagedAttention, written from docs/spec/paged_attention.md section 3 and docs/spec/DECISIONS.md.

Everything here is float64 and plain: gather the keys of each sequence through its block table, score, scale,
mask, softmax, weight the values. It reads an ATB param (a dict with ATB's field names) and the call's tensors by
ATB input name, and shares no code with atbx.
"""
import numpy as np

UNDEFINED, NORM, ALIBI, SPEC, MASK_FREE, NORM_COMPRESS = range(6)
DEQUANT, QKV_OFFLINE, QKV_ONLINE = 1, 2, 3
P_TILE = 128          # keys per P-quantisation tile (DECISIONS 9)
FLAG_SCALE = -3e38    # MLA + SPEC bf16 masks hold 0/1 flags (DECISIONS 8)
MASK_FREE_VALUE = -60000.0


def round_to(values, dtype):
    """values rounded to a float dtype, as float64."""
    values = np.asarray(values, dtype=np.float64)
    if dtype == "float16":
        return values.astype(np.float16).astype(np.float64)
    if dtype == "bfloat16":
        bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
        bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
        return bits.astype(np.uint32).view(np.float32).astype(np.float64)
    return values


def descale_values(tensor):
    """A descale tensor's fp32 values; int64/uint64 descales hold the fp32 bits in their low 32 bits."""
    if tensor.dtype in ("int64", "uint64"):
        low = (tensor.array.astype(np.uint64) & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        return low.view(np.float32).astype(np.float64)
    return tensor.values()


def nz_to_nd(nz):
    """FRACTAL_NZ [N, C/16, R, 16] -> ND [N, R, C]."""
    n, blocks, rows, _ = nz.shape
    return nz.transpose(0, 2, 1, 3).reshape(n, rows, blocks * 16)


class PagedCache:
    """Row j of a sequence is slot j % bs of block table[j // bs]; layouts BSND [NB, BS, Hc, D], BNSD
    [NB, Hc, BS, D], NZ [NB, Hc*D/16, BS, 16] (channel h*D + d of slot s at [p, (h*D+d)/16, s, (h*D+d)%16])."""

    def __init__(self, values, layout, heads):
        if layout == "NZ":
            nb, _, bs, _ = values.shape
            values = values.transpose(0, 2, 1, 3).reshape(nb, bs, heads, -1)
        elif layout == "BNSD":
            values = values.transpose(0, 2, 1, 3)
        self.values = values  # [NB, BS, Hc, D]
        self.block_size = values.shape[1]

    def rows(self, table_row, length, head):
        j = np.arange(length)
        blocks = np.asarray(table_row)[j // self.block_size]
        return self.values[blocks, j % self.block_size, head, :]

    def blocks_and_slots(self, table_row, length):
        j = np.arange(length)
        return np.asarray(table_row)[j // self.block_size], j % self.block_size


class PagedAttentionGolden:
    def __init__(self, param, tensors):
        self.p = param
        self.t = tensors
        self.heads = param["headNum"]
        self.kv_heads = param.get("kvHeadNum", 0) or self.heads
        self.group = self.heads // self.kv_heads
        self.mask_type = param.get("maskType", UNDEFINED)
        self.quant = param.get("quantType", 0)
        self.compressed = param.get("compressType", 0) != 0
        self.spec = param.get("calcType", 0) == 1
        self.mla_v = param.get("mlaVHeadSize", 0)
        key = tensors["keyCache"]
        self.nz = key.format == "FRACTAL_NZ"
        layout = "NZ" if self.nz else ("BNSD" if param.get("inputLayout", 0) == 1 else "BSND")
        cache_heads = 1 if self.compressed else self.kv_heads
        self.keys = PagedCache(key.values(), layout, cache_heads)
        self.vals = self.keys if self.mla_v else PagedCache(tensors["valueCache"].values(), layout, cache_heads)
        self.table = tensors["blockTables"].array
        self.lens = tensors["contextLens"].array
        q = tensors["query"].values()
        q_scale = param.get("qScale", 0.0)
        if q_scale not in (0.0, 1.0):
            q = round_to(q * np.float32(q_scale), tensors["query"].dtype)
        self.q = q
        mask = tensors.get("mask")
        if mask is not None:  # NZ masks [N, S/16, R, 16] are read as ND [N, R, S]
            self.mask_nz = mask.format == "FRACTAL_NZ"
            self.mask_dtype = mask.dtype
            self.mask = nz_to_nd(mask.values()) if self.mask_nz else mask.values()

    # ---- pieces of the formula ----

    def runs(self, index):
        status = self.t.get("batchRunStatus")
        return self.lens[index] > 0 and (status is None or status.array[index] != 0)

    def dequantised(self, rows, kv_head, which):
        """DEQUANT_FUSION: (x + offset[k*D + c]) * descale[k*D + c]."""
        if self.quant != DEQUANT:
            return rows
        d = rows.shape[-1]
        channels = slice(kv_head * d, (kv_head + 1) * d)
        scale = descale_values(self.t[which + "Descale"])[channels]
        offset = self.t[which + "Offset"].values()[channels] if (which + "Offset") in self.t else 0.0
        return (rows + offset) * scale

    def sequence(self, index, kv_head):
        """keys [L, D] and values [L, Dv] of contextLens row `index`, cache head `kv_head`."""
        length = self.lens[index]
        cache_head = 0 if self.compressed else kv_head
        k = self.keys.rows(self.table[index], length, cache_head)
        if self.mla_v:
            v = k[:, :self.mla_v]
        else:
            v = self.vals.rows(self.table[index], length, cache_head)
        return self.dequantised(k, kv_head, "k"), self.dequantised(v, kv_head, "v")

    def tor(self, b):
        scale = np.float32(self.p.get("qkScale", 1.0))
        if self.p.get("scaleType", 0) == 1:
            scale = scale * self.t["logN"].values()[b]
        return float(scale)

    def mask_term(self, b, rows_i, heads, length, q_len, packed_row):
        """Additive term [len(rows_i), len(heads), length] for query rows i of batch b (docs/spec/paged_attention.md 3.5)."""
        t = self.mask_type
        n_i, n_h = len(rows_i), len(heads)
        if t == UNDEFINED:
            return np.zeros((n_i, n_h, length))
        j = np.arange(length)
        if t in (MASK_FREE, NORM_COMPRESS):
            prefix = max(0, length - q_len)
            hidden = j[None, :] > prefix + np.asarray(rows_i)[:, None]
            value = MASK_FREE_VALUE if t == MASK_FREE else self.mask.reshape(-1, 2048)[0, 2047]
            return np.broadcast_to(np.where(hidden, value, 0.0)[:, None, :], (n_i, n_h, length))
        m = self.mask
        rows_i = np.asarray(rows_i)
        if self.mask_nz:
            if t == SPEC:
                sel = m[0][packed_row + rows_i][:, None, :]
            elif t == NORM:
                plane = m[b] if m.shape[0] > 1 else m[0]
                sel = np.broadcast_to(plane[rows_i][:, None, :], (n_i, n_h, m.shape[2]))
            else:  # ALIBI: plane b*H + h, or h
                planes = [(h if m.shape[0] == self.heads else b * self.heads + h) for h in heads]
                sel = m[planes][:, rows_i, :].transpose(1, 0, 2)
        elif t == SPEC:
            sel = np.broadcast_to(m[packed_row + rows_i][:, None, :], (n_i, n_h, m.shape[-1]))
        elif t == NORM and m.ndim == 2:
            square = m.shape[0] == m.shape[1]
            rows = (length - q_len + rows_i) if square else rows_i
            sel = np.broadcast_to(m[rows][:, None, :], (n_i, n_h, m.shape[-1]))
        elif t == NORM:  # [B, R, S]: batch b's plane, row i
            sel = np.broadcast_to(m[b][rows_i][:, None, :], (n_i, n_h, m.shape[-1]))
        elif m.ndim == 3:  # ALIBI [H, R, S]
            sel = m[heads][:, rows_i, :].transpose(1, 0, 2)
        else:  # ALIBI [B, H, R, S]
            sel = m[b][heads][:, rows_i, :].transpose(1, 0, 2)
        sel = sel[:, :, :length]
        if self.mla_v and self.spec and self.mask_dtype == "bfloat16":
            sel = sel * FLAG_SCALE
        return sel

    def razor(self, index, length):
        if "razorOffset" not in self.t:
            return 0.0
        blocks, slots = self.keys.blocks_and_slots(self.table[index], length)
        return self.t["razorOffset"].values()[blocks, slots]

    # ---- softmax . V ----

    def attend(self, scores, values, heads):
        """scores [n_i, n_h, L] -> [n_i, n_h, Dv]; int8 QKV quantises P per tile (docs/spec/paged_attention.md 3.8)."""
        if self.quant in (QKV_OFFLINE, QKV_ONLINE):
            return self.quantised(scores, values, heads)
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        weights /= weights.sum(axis=-1, keepdims=True)
        return weights @ values

    def quantised(self, scores, values, heads):
        v_descale = self.t["vDescale"].values()[heads][None, :, None]
        p_scale = self.t["pScale"].values()[heads][None, :, None] if self.quant == QKV_OFFLINE else None
        shape = scores.shape[:2]
        m = np.full(shape, -np.inf)
        total = np.zeros(shape)
        acc = np.zeros(shape + (values.shape[1],))
        for t0 in range(0, scores.shape[-1], P_TILE):
            tile = scores[..., t0:t0 + P_TILE]
            tile_max = tile.max(axis=-1)
            m_new = np.maximum(m, tile_max)
            rescale = np.exp(m - m_new)
            p = np.exp(tile - m_new[..., None])
            total = total * rescale + p.sum(axis=-1)
            acc *= rescale[..., None]
            if self.quant == QKV_ONLINE:
                sigma = (np.exp(tile_max - m_new) / 127.0)[..., None]
                p8 = np.rint(round_to(p / sigma, "float16"))
                acc += (p8 @ values[t0:t0 + P_TILE]) * v_descale * sigma
            else:
                p8 = np.rint(round_to(p * p_scale, "float16"))
                acc += (p8 @ values[t0:t0 + P_TILE]) * v_descale
            m = m_new
        return acc / total[..., None]

    # ---- the whole call ----

    def run(self):
        t_rows, dv = self.q.shape[0], (self.mla_v or self.vals.values.shape[-1])
        out = np.full((t_rows, self.heads, dv), np.nan)
        if self.compressed:
            for index in range(len(self.lens)):
                if self.runs(index):
                    b, k = divmod(index, self.kv_heads)
                    self.attend_group(out, b, index, k, b, 1)
            return out
        row = 0
        for b in range(len(self.lens)):
            q_len = self.t["qSeqLen"].array[b] if self.spec else 1
            if not self.runs(b) or q_len == 0:
                continue
            for k in range(self.kv_heads):
                self.attend_group(out, b, b, k, row, q_len)
            row += q_len
        return out

    def attend_group(self, out, b, index, k, row, q_len):
        """Query rows [row, row + q_len) of batch b, heads of kv head k, against contextLens row `index`."""
        heads = list(range(k * self.group, (k + 1) * self.group))
        keys, values = self.sequence(index, k)
        length = len(keys)
        q = self.q[row:row + q_len][:, heads, :]                 # [n_i, g, D]
        scores = q @ keys.T                                        # [n_i, g, L]
        if self.quant in (QKV_OFFLINE, QKV_ONLINE):
            scores = scores * self.t["kDescale"].values()[heads][None, :, None]
        scores = (scores + self.razor(index, length)) * self.tor(b)
        scores = scores + self.mask_term(b, list(range(q_len)), heads, length, q_len, row)
        out[row:row + q_len, heads, :] = self.attend(scores, values, heads)


def paged_attention(param, tensors):
    """The golden output [T, H, Dv] of a call (param: ATB field names; tensors: by ATB input name, each with
    .values(), .array, .dtype, .format); elements no batch writes are NaN."""
    return PagedAttentionGolden(param, tensors).run()

