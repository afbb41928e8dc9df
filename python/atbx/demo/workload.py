"""The stream of requests the demo serves: prompts that often start with a shared system prompt, arriving over
time, some asking for two samples (a fork that shares the prompt's blocks)."""
from dataclasses import dataclass

import numpy as np


@dataclass
class Request:
    request_id: int
    prompt: list          # token ids
    max_new_tokens: int
    arrival_step: int     # the engine step at which it arrives
    samples: int = 1      # 2: a second sequence forks after prefill and starts from the runner-up token
    system_prompt: bool = False  # starts with one of the shared system prompts


def make_requests(count, prompt_range, output_range, shared_prefix, fork_fraction, vocab, arrival_interval, seed):
    """`count` requests; half of them start with one of two system prompts of `shared_prefix` tokens."""
    rng = np.random.default_rng(seed)
    system_prompts = [list(rng.integers(0, vocab, shared_prefix)) for _ in range(2)] if shared_prefix else []
    requests, step = [], 0.0
    for request_id in range(count):
        length = int(rng.integers(prompt_range[0], prompt_range[1] + 1))
        prompt = [int(t) for t in rng.integers(0, vocab, length)]
        shared = bool(system_prompts) and request_id % 2 == 0
        if shared:
            prompt = [int(t) for t in system_prompts[(request_id // 2) % 2]] + prompt
        requests.append(Request(request_id, prompt, int(rng.integers(output_range[0], output_range[1] + 1)),
                                int(step), 2 if rng.random() < fork_fraction else 1, shared))
        step += rng.exponential(arrival_interval)
    return requests
