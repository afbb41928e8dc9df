"""Independent NumPy golden for SelfAttention, written from docs/spec/self_attention.md sections 2-3 and docs/spec/DECISIONS.md.

Everything is float64 and plain: gather each batch's queries, keys and values the way the mode lays them out,
build the batch's full (uncompressed) mask, score, softmax, weight the values. It shares no code with atbx.
Masks are passed in uncompressed, as ATB's own goldens use them: a compressed tile's golden is the full mask it
stands for.
"""
import numpy as np

FLAG = -3e38  # 0/1 flag masks: a 1 hides the key


def attend(q, k, v, qk_scale, term=None, row_scale=None, clamp=None):
    """q [Sq, D], k [Skv, D], v [Skv, Dv]; term [Sq, Skv] additive (-inf hides); row_scale [Sq] (logN).

    Returns softmax(clamp(q.k^T * qk_scale * row_scale) + term) . v as [Sq, Dv].
    """
    s = (q @ k.T) * qk_scale
    if row_scale is not None:
        s = s * np.asarray(row_scale)[:, None]
    if clamp is not None:
        s = np.clip(s, clamp[0], clamp[1])
    if term is not None:
        s = s + term
    top = s.max(axis=1, keepdims=True)
    w = np.exp(s - top)
    w = w / w.sum(axis=1, keepdims=True)
    return w @ v


def heads_attend(q, k, v, qk_scale, term_of_head=None, row_scale=None, clamp=None):
    """q [Sq, H, D], k [Skv, Hk, D], v [Skv, Hk, Dv] -> [Sq, H, Dv]; head h uses kv head h // (H / Hk)."""
    heads, kv_heads = q.shape[1], k.shape[1]
    group = heads // kv_heads
    out = np.zeros((q.shape[0], heads, v.shape[2]))
    for h in range(heads):
        term = None if term_of_head is None else term_of_head(h)
        out[:, h, :] = attend(q[:, h, :], k[:, h // group, :], v[:, h // group, :], qk_scale, term, row_scale,
                              clamp)
    return out


def round_to(values, dtype):
    """Values rounded to float16 or bfloat16 (nearest even), as float64."""
    values = np.asarray(values, dtype=np.float64)
    if dtype == "float16":
        return values.astype(np.float16).astype(np.float64)
    if dtype == "bfloat16":
        bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
        rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
        return rounded.astype(np.uint32).view(np.float32).astype(np.float64)
    return values


# ---------------------------------------------------------------------------------------------------------------
# Masks, uncompressed. Each returns the additive term of one batch and head: [q_len, kv_len].

def causal_term(q_len, kv_len, prefix=0, hidden=-np.inf, window=0):
    """Query i sits at position prefix + i and sees keys j <= prefix + i (and j > prefix + i - window)."""
    i = np.arange(q_len)[:, None] + prefix
    j = np.arange(kv_len)[None, :]
    hide = j > i
    if window:
        hide |= j <= i - window
    return np.where(hide, hidden, 0.0)


def alibi_slopes(heads):
    """Standard ALiBi slopes (ATB's tests): n = 2^floor(log2 H), m0 = 2^(-8/n), then odd powers of 2^(-4/n)."""
    n = 2 ** int(np.floor(np.log2(heads)))
    slopes = [(2.0 ** (-8.0 / n)) ** (k + 1) for k in range(n)]
    slopes += [(2.0 ** (-4.0 / n)) ** (2 * k + 1) for k in range(heads - n)]
    return np.array(slopes)


def alibi_term(slope, q_len, kv_len, prefix=0, form="distance"):
    """Full ALiBi mask of one head: slope * (j - p) ('distance'), slope * -sqrt(p - j) ('sqrt'; ATB's tests
    negate the sign of the sqrt bias like the plain one), or slope * j ('left'), with keys after p hidden."""
    p = np.arange(q_len)[:, None] + prefix
    j = np.arange(kv_len)[None, :]
    d = np.maximum(p - j, 0).astype(np.float64)
    if form == "distance":
        bias = -slope * d
    elif form == "sqrt":
        bias = -slope * np.sqrt(d)
    else:
        bias = slope * j * np.ones_like(d)
    return np.where(j > p, -np.inf, bias)


# ---------------------------------------------------------------------------------------------------------------
# Modes.

def fa_cache(q, key, value, cache_k, cache_v, token_offset, seq_len, layer, heads, kv_heads, qk_scale,
             q_scale=1.0, dtype="float16", mask_term=None, keys_of=None, logn_of=None, clamp=None, status=None,
             rows_of=None, write=True):
    """Flash attention with the KV cache (docs/spec/self_attention.md 2.1-2.2, 3.2).

    q [N, H*D], key/value [N, Hk*d] token rows; cache_k/cache_v [L, B, S, Hk*d] (or [B, S, Hk*d] without layers).
    rows_of(b) -> rows batch b owns in q (padding on Atlas inference; default seq_len[b]).
    mask_term(b, h, q_len, kv_len) -> [q_len, kv_len]; keys_of(b, kv) -> (begin, end); logn_of(b) -> [q_len].
    status: batchRunStatus (0: no write, zero output). Returns (out [N, H*Dv], cache_k, cache_v) updated.
    """
    cache_k = cache_k.copy()
    cache_v = cache_v.copy()
    layered = cache_k.ndim == 4
    d = q.shape[1] // heads
    dv = cache_v.shape[-1] // kv_heads
    out = np.zeros((q.shape[0], heads * dv))
    row = 0
    for b, (q_len, kv) in enumerate(zip(seq_len, token_offset)):
        rows = q_len if rows_of is None else rows_of(b)
        stopped = status is not None and status[b] == 0
        ck = cache_k[layer, b] if layered else cache_k[b]
        cv = cache_v[layer, b] if layered else cache_v[b]
        if write and not stopped:
            ck[kv - q_len:kv] = key[row:row + q_len]
            cv[kv - q_len:kv] = value[row:row + q_len]
        if not stopped and q_len > 0:
            begin, end = (0, kv) if keys_of is None else keys_of(b, kv)
            qb = q[row:row + q_len].reshape(q_len, heads, d)
            if q_scale != 1.0:
                qb = round_to(qb * q_scale, dtype)
            kb = ck[begin:end].reshape(end - begin, kv_heads, d)
            vb = cv[begin:end].reshape(end - begin, kv_heads, dv)
            term = None if mask_term is None else (lambda h: mask_term(b, h, q_len, kv)[:, begin:end])
            o = heads_attend(qb, kb, vb, qk_scale, term, None if logn_of is None else logn_of(b), clamp)
            out[row:row + q_len] = o.reshape(q_len, heads * dv)
        row += rows
    return out, cache_k, cache_v


def bnsd_bypass(q, cache_k, cache_v, token_offset, seq_len, layer, kv_heads, qk_scale, mask_term=None):
    """BNSD flash attention over the caller's cache (docs/spec/self_attention.md 2.3): q [B, H, Sq, D], caches
    [L, B, Hk, S, D]; rows past seq_len[b] are 0. Returns [B, H, Sq, D]."""
    batch, heads, _, _ = q.shape
    out = np.zeros(q.shape[:3] + (cache_v.shape[-1],))
    for b in range(batch):
        q_len, kv = seq_len[b], token_offset[b]
        qb = q[b, :, :q_len].transpose(1, 0, 2)
        kb = cache_k[layer, b, :, :kv].transpose(1, 0, 2)
        vb = cache_v[layer, b, :, :kv].transpose(1, 0, 2)
        term = None if mask_term is None else (lambda h: mask_term(b, h, q_len, kv))
        out[b, :, :q_len] = heads_attend(qb, kb, vb, qk_scale, term).transpose(1, 0, 2)
    return out


def pa_encoder(q, k, v, q_lens, kv_lens, qk_scale, mask_term=None, logn=None, clamp=None, out_rows=None):
    """Packed prefill (docs/spec/self_attention.md 2.4): q [N, H, D], k/v [Nk, Hk, d].
    Batches with no query rows or no keys attend nothing; rows past the last batch (out_rows) are 0.
    Returns [out_rows or N, H, Dv]."""
    heads = q.shape[1]
    out = np.zeros((out_rows or q.shape[0], heads, v.shape[-1]))
    row = key_row = 0
    for b, (q_len, kv) in enumerate(zip(q_lens, kv_lens)):
        if q_len > 0 and kv > 0:
            kb, vb = k[key_row:key_row + kv], v[key_row:key_row + kv]
            term = None if mask_term is None else (lambda h: mask_term(b, h, q_len, kv))
            row_scale = None if logn is None else logn[:q_len]
            out[row:row + q_len] = heads_attend(q[row:row + q_len], kb, vb, qk_scale, term, row_scale, clamp)
        row += q_len
        key_row += kv
    return out


def prefix_encoder(q, k_cache, v_cache, block_tables, q_lens, kv_lens, qk_scale, mask_term):
    """Prefill over a paged prefix cache (docs/spec/self_attention.md 2.5): q [N, H, D], caches [NB, BS, Hk, d];
    key j of batch b at cache[block_tables[b][j // BS]][j % BS]. mask_term(b, h, q_len, kv_len) is bottom-right
    aligned by the caller. Returns [N, H, Dv]."""
    block_size = k_cache.shape[1]
    out = np.zeros(q.shape[:2] + (v_cache.shape[-1],))
    row = 0
    for b, (q_len, kv) in enumerate(zip(q_lens, kv_lens)):
        positions = np.arange(kv)
        blocks = block_tables[b][positions // block_size]
        kb = k_cache[blocks, positions % block_size]
        vb = v_cache[blocks, positions % block_size]
        out[row:row + q_len] = heads_attend(q[row:row + q_len], kb, vb, qk_scale,
                                            lambda h: mask_term(b, h, q_len, kv))
        row += q_len
    return out


def pa_encoder_int8(q, k, v, q_lens, qk_descale, v_descale, qk_scale, online, p_scale=None, mask_term=None,
                    tile=128):
    """int8 QKV prefill (docs/spec/self_attention.md 3.8): q [N, H, D], k/v [N, Hk, D] int8 values, descales per query head.

    Per row, over tiles of 128 keys: m' = max(m, tile max), w = exp(s - m'), l = l e^(m-m') + sum w; the weights
    are quantised with step sigma (online: the largest tile maximum of w so far / 127; offline: p_scale[h]) as
    x = rint(fp16(w / sigma)), and O = O e^(m-m') + (x . V) sigma v_descale[h]. Output O / l.
    """
    heads, kv_heads = q.shape[1], k.shape[1]
    group = heads // kv_heads
    out = np.zeros(q.shape[:2] + (v.shape[2],))
    row = 0
    for b, length in enumerate(q_lens):
        for h in range(heads):
            g = h // group
            s = (q[row:row + length, h] @ k[row:row + length, g].T) * qk_descale[h] * qk_scale
            if mask_term is not None:
                s = s + mask_term(b, h, length, length)
            vb = v[row:row + length, g]
            for i in range(length):
                m, l, w_max = -np.inf, 0.0, 0.0
                o = np.zeros(v.shape[2])
                for t0 in range(0, length, tile):
                    st = s[i, t0:t0 + tile]
                    m_new = max(m, st.max())
                    w = np.exp(st - m_new)
                    w_max = max(w_max, w.max())
                    sigma = w_max / 127 if online else p_scale[h]
                    x = np.clip(np.rint(round_to(w / sigma, "float16")), -128, 127)
                    o = o * np.exp(m - m_new) + (x @ vb[t0:t0 + tile]) * sigma * v_descale[h]
                    l = l * np.exp(m - m_new) + w.sum()
                    m = m_new
                out[row + i, h] = o / l
        row += length
    return out


# ---------------------------------------------------------------------------------------------------------------
# Layout helpers.

def to_nz(matrix_stack):
    """[..., rows, cols] -> FRACTAL_NZ [..., cols / 16, rows, 16]."""
    *lead, rows, cols = matrix_stack.shape
    return matrix_stack.reshape(*lead, rows, cols // 16, 16).swapaxes(-3, -2)


def cache_to_nz(cache):
    """FA cache [L, B, S, H*d] -> FRACTAL_NZ [L, B, H*d / 16, S, 16]."""
    return to_nz(cache)


def cache_from_nz(nz):
    """FRACTAL_NZ [L, B, H*d / 16, S, 16] -> [L, B, S, H*d]."""
    *lead, tiles, rows, _ = nz.shape
    return nz.swapaxes(-3, -2).reshape(*lead, rows, tiles * 16)
