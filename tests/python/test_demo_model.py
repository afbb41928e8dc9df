"""The demo's model: NumPy pieces on their own, and the serving path (paged cache, prefix sharing, forks,
speculative steps through atbx's operations) against a full recompute without the cache, on tiny shapes."""
import numpy as np
import pytest

from demo_support import import_demo_module, require_binding

model_module = import_demo_module("model")
full_recompute = import_demo_module("full_recompute")
shapes = import_demo_module("shapes")
check = import_demo_module("check")

TINY_GQA = shapes.AttentionShape("tiny-gqa", 4, 2, 32, 32, 32)
TINY_MLA = shapes.AttentionShape("tiny-mla", 4, 1, 96, 64, 32, mla=True)


def test_rope_keeps_norms_and_makes_scores_depend_on_relative_position_only():
    rng = np.random.default_rng(0)
    q = rng.standard_normal((1, 1, 48)).astype(np.float32)
    k = rng.standard_normal((1, 1, 48)).astype(np.float32)

    def score(p_q, p_k):
        rq = model_module.apply_rope(q, [p_q], 32)
        rk = model_module.apply_rope(k, [p_k], 32)
        return float(np.sum(rq * rk))

    rotated = model_module.apply_rope(q, [7], 32)
    assert np.allclose(np.linalg.norm(rotated), np.linalg.norm(q), rtol=1e-5)
    assert np.allclose(rotated[..., :16], q[..., :16])     # channels before the RoPE part are untouched
    assert score(9, 4) == pytest.approx(score(25, 20), rel=1e-4)
    assert score(9, 4) != pytest.approx(score(9, 5), rel=1e-3)


def test_causal_attention_matches_a_direct_loop():
    rng = np.random.default_rng(1)
    q, k, v = (rng.uniform(-3, 3, (5, h, 8)).astype(np.float32) for h in (4, 2, 2))
    out = full_recompute.causal_attention(q, k, v, 0.3)
    for i in range(5):
        for h in range(4):
            scores = np.array([q[i, h] @ k[j, h // 2] * 0.3 for j in range(i + 1)], dtype=np.float64)
            weights = np.exp(scores - scores.max())
            expected = (weights / weights.sum()) @ v[:i + 1, h // 2]
            assert np.allclose(out[i, h], expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("shape", [TINY_GQA, TINY_MLA], ids=lambda s: s.name)
def test_full_recompute_is_causal(shape):
    model = model_module.TinyTransformer(shape, layers=2, hidden=32, vocab=40, seed=5)
    tokens = list(np.random.default_rng(2).integers(0, 40, 30))
    whole = full_recompute.full_recompute_logits(model, tokens, "fp16")
    prefix = full_recompute.full_recompute_logits(model, tokens[:17], "fp16")
    # Equal up to BLAS summation order (matrices of other heights block differently).
    assert np.max(np.abs(whole[:17] - prefix)) < 1e-3
    changed = full_recompute.full_recompute_logits(model, tokens[:16] + [(tokens[16] + 1) % 40], "fp16")
    assert np.max(np.abs(changed[16] - prefix[16])) > 0.1


def serve(shape, dtype, seed=0, spec_k=3):
    """Serves a small workload through the real operations; returns (model, finished sequences, engine)."""
    atbx = require_binding()
    from atbx.demo.attention_ops import AttentionOps
    from atbx.demo.block_manager import BlockManager
    from atbx.demo.drafter import NGramDrafter
    from atbx.demo.engine import Engine
    from atbx.demo.scheduler import Scheduler
    from atbx.demo.workload import make_requests

    model = model_module.TinyTransformer(shape, layers=2, hidden=48, vocab=64, seed=seed)

    def make_op(label, name, param):
        return atbx.Operation(name, param, platform="atlas-a2", backend="auto", threads=2)

    ops = AttentionOps(make_op, shape, dtype, 2, num_blocks=14, block_size=128, max_context=384,
                       qk_scale=model.qk_scale)
    scheduler = Scheduler(BlockManager(14, 128), max_batch=4, max_prefill_tokens=2048,
                          use_prefix_cache=ops.supports_prefix)
    # A 130-token system prompt: one shared full block; prompts ending mid-block fork into a shared partial one.
    requests = make_requests(6, (3, 60), (4, 12), shared_prefix=130, fork_fraction=0.5, vocab=64,
                             arrival_interval=1.0, seed=seed)
    engine = Engine(model, ops, scheduler, NGramDrafter(), spec_k)
    return model, engine.run(requests), engine


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
@pytest.mark.parametrize("shape", [TINY_GQA, TINY_MLA], ids=lambda s: s.name)
def test_served_tokens_equal_a_full_recompute(shape, dtype):
    model, finished, engine = serve(shape, dtype)
    stats = engine.scheduler.blocks.stats
    assert stats.copies_on_write > 0
    assert engine.metrics.spec_calls > 0 and engine.metrics.accepted > 0  # drafts verified, some kept
    if not shape.mla:
        assert stats.prefix_hits > 0
    result = check.check_against_full_recompute(model, finished, dtype)
    assert result.passed, result.describe()
    assert result.tokens == sum(len(seq.logits) for seq in finished) > 40
    assert result.max_logit_error > 0   # the operations really ran (not the recompute's own arithmetic)


def test_plain_decoding_without_drafts_equals_the_full_recompute():
    model, finished, engine = serve(TINY_GQA, "fp16", seed=1, spec_k=0)
    assert engine.metrics.spec_calls == 0
    result = check.check_against_full_recompute(model, finished, "fp16")
    assert result.passed, result.describe()


def test_the_check_fails_on_a_wrong_token_or_a_wrong_logit():
    model, finished, _ = serve(TINY_GQA, "fp16", seed=2)
    seq = finished[0]
    position = max(seq.logits)
    served = seq.tokens[position + 1]
    reference = full_recompute.full_recompute_logits(model, seq.tokens[:-1], "fp16")[position]
    clearly_worse = int(np.argmin(reference))
    seq.tokens[position + 1] = clearly_worse
    result = check.check_against_full_recompute(model, [seq], "fp16")
    assert not result.passed and result.mismatches[0][1:4] == (position, clearly_worse, served)
    seq.tokens[position + 1] = served
    seq.logits[position] = seq.logits[position] + 0.2
    result = check.check_against_full_recompute(model, [seq], "fp16")
    assert not result.passed and result.max_logit_error >= 0.2 - 1e-3


def test_the_check_catches_a_serving_bug_a_skipped_copy_on_write(monkeypatch):
    from atbx.demo.attention_ops import AttentionOps

    # Without the copy, a fork's copied block holds zeros where its shared prompt tokens' keys should be.
    monkeypatch.setattr(AttentionOps, "copy_block", lambda self, source, destination: None)
    model, finished, engine = serve(TINY_GQA, "fp16", seed=0)
    assert engine.scheduler.blocks.stats.copies_on_write > 0
    result = check.check_against_full_recompute(model, finished, "fp16")
    assert not result.passed and result.max_logit_error > 0.1
