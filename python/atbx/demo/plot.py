"""--plot: tokens/s and batch size over the run's time, from the per-step records."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the file-only backend)
import numpy as np  # noqa: E402


def tokens_per_second(steps, window):
    """Tokens generated in the trailing `window` seconds before each step's end, per second."""
    ends = np.array([s.end for s in steps])
    cumulative = np.cumsum([s.generated for s in steps])
    before = np.searchsorted(ends, ends - window, side="right") - 1
    earlier = np.where(before >= 0, cumulative[np.maximum(before, 0)], 0)
    span = np.minimum(window, ends)
    return (cumulative - earlier) / np.maximum(span, 1e-9)


def draw(steps, path, title):
    ends = np.array([s.end for s in steps])
    window = max(0.5, ends[-1] / 40)
    figure, (rate, batch) = plt.subplots(2, 1, sharex=True, figsize=(9, 5.5))
    rate.plot(ends, tokens_per_second(steps, window), color="tab:blue")
    rate.set_ylabel(f"tokens/s ({window:.1f} s window)")
    rate.set_title(title)
    rate.grid(alpha=0.3)
    batch.step(ends, [s.batch for s in steps], where="post", color="tab:orange", label="decoding")
    batch.bar(ends, [s.admitted for s in steps], width=ends[-1] / 400, color="tab:green", label="prefilled")
    batch.set_ylabel("sequences per step")
    batch.set_xlabel("time (s)")
    batch.legend(loc="upper right")
    batch.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
