"""The end-of-run check: every token the serving path chose equals the token a full recompute of the same
sequence chooses, without any cache, paging, prefix sharing or speculation (full_recompute.py).

Both sides see identical inputs: the recompute runs on the serving path's own token sequence (teacher forcing), so
one flipped token cannot cascade into a diverged continuation. What differs is only the operations' summation
order and internal precision, so the logits agree to a small tolerance; and where two candidates are closer than
twice that tolerance, either choice is legitimate (a near tie, counted but not failed). A token that differs
where the margin is clear, or a logit off by more than the tolerance, fails the check.
"""
from dataclasses import dataclass, field

import numpy as np

from .full_recompute import full_recompute_logits
from .summary import plural

# Max |logit difference| allowed per dtype: logits are a few units; bf16 keeps 8 bits of mantissa, fp16 11.
LOGIT_TOLERANCE = {"fp16": 0.05, "bf16": 0.25}


@dataclass
class CheckResult:
    tolerance: float
    sequences: int = 0
    tokens: int = 0
    near_ties: int = 0
    max_logit_error: float = 0.0
    mismatches: list = field(default_factory=list)  # (seq_id, position, served token, recomputed token, margin)

    @property
    def passed(self):
        return not self.mismatches and self.max_logit_error <= self.tolerance

    def describe(self):
        verdict = "PASS" if self.passed else "FAIL"
        text = (f"check: {verdict}: {self.tokens} served tokens of {self.sequences} sequences against a full "
                f"recompute without the cache:\n  max logit difference {self.max_logit_error:.2g} (tolerance "
                f"{self.tolerance:g}), {plural(self.near_ties, 'near tie')}, "
                f"{plural(len(self.mismatches), 'clear mismatch', 'clear mismatches')}")
        for seq_id, position, served, recomputed, margin in self.mismatches[:5]:
            text += (f"\n  sequence {seq_id} position {position}: served token {served}, recompute chose "
                     f"{recomputed} by a margin of {margin:.3g}")
        return text


def check_against_full_recompute(model, seqs, dtype, tolerance=None):
    result = CheckResult(LOGIT_TOLERANCE[dtype] if tolerance is None else tolerance)
    for seq in seqs:
        full = full_recompute_logits(model, seq.tokens[:-1], dtype)
        result.sequences += 1
        for position, served_logits in sorted(seq.logits.items()):
            reference = full[position]
            result.max_logit_error = max(result.max_logit_error,
                                         float(np.max(np.abs(served_logits - reference))))
            rank = 2 if position in seq.forced else 1
            expected = int(np.argsort(reference)[-rank])
            served = seq.tokens[position + 1]
            result.tokens += 1
            if served == expected:
                continue
            margin = float(abs(reference[expected] - reference[served]))
            if margin <= 2 * result.tolerance:
                result.near_ties += 1
            else:
                result.mismatches.append((seq.seq_id, position, served, expected, margin))
    return result
