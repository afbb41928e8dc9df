"""A cheap draft model for speculative decoding: n-gram lookup, no weights.

Each next draft token is what the target model chose after the same last two tokens (else the same last token)
anywhere it has generated so far, across all sequences; failing that, what followed the latest earlier occurrence
of the sequence's last three or two tokens in its own history. A small model's greedy choices depend on the
recent tokens often enough that some drafts are right; the target model verifies all of them at once (one
PagedAttention SPEC call per layer) and keeps the longest correct prefix.
"""


class NGramDrafter:
    def __init__(self):
        self._after_pair = {}   # (t[-2], t[-1]) -> the token the target model chose next
        self._after_token = {}  # t[-1] -> the token the target model chose next

    def observe(self, tokens, first_new):
        """Learns the target model's choices tokens[first_new:] (each from the tokens before it)."""
        for p in range(max(first_new, 2), len(tokens)):
            self._after_pair[(tokens[p - 2], tokens[p - 1])] = tokens[p]
            self._after_token[tokens[p - 1]] = tokens[p]

    def propose(self, tokens, count):
        """Up to `count` draft tokens to follow `tokens` (fewer, or none, when nothing matches)."""
        history = list(tokens)
        draft = []
        while len(draft) < count:
            guess = self._after_pair.get((history[-2], history[-1])) if len(history) >= 2 else None
            if guess is None:
                guess = self._after_token.get(history[-1])
            if guess is None:
                guess = self._repeat(history)
            if guess is None:
                break
            draft.append(guess)
            history.append(guess)
        return draft

    @staticmethod
    def _repeat(history):
        """The token after the latest earlier occurrence of the last 3 (else 2) tokens of the history."""
        for n in (3, 2):
            tail = history[-n:]
            for start in range(len(history) - n - 1, -1, -1):
                if history[start:start + n] == tail:
                    return history[start + n]
        return None
