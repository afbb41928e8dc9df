#!/usr/bin/env python3
"""Writes a PagedAttention decode case with sparse key/value caches of real model shape, for measuring what the
case reader costs: numBlocks x 128 x 8 x 128 float16 (a 10240-block cache is 2.5 GiB per cache, no disk used).

    scripts/make_large_case.py DIR NUM_BLOCKS
    /usr/bin/time -v build/release/tools/atbx/atbx check DIR/case.json
"""
import json
import os
import sys

import numpy as np


def sparse_npy(path, shape, dtype):
    """A .npy file whose data is a hole: it reads as zeros and takes neither disk nor page cache."""
    header = {'descr': np.lib.format.dtype_to_descr(np.dtype(dtype)), 'fortran_order': False, 'shape': shape}
    with open(path, 'wb') as f:
        np.lib.format.write_array_header_1_0(f, header)
        f.truncate(f.tell() + int(np.prod(shape)) * np.dtype(dtype).itemsize)


def main(directory, blocks):
    """Four sequences (contexts 4096, 1531, 777, 2049) over 32 random blocks each; GQA 32 over 8 heads."""
    os.makedirs(directory, exist_ok=True)
    rng = np.random.default_rng(1)
    lens = np.array([4096, 1531, 777, 2049], dtype=np.int32)
    max_blocks = 32
    table = rng.choice(blocks, size=(4, max_blocks), replace=False).astype(np.int32)
    np.save(os.path.join(directory, 'q.npy'), rng.uniform(-1, 1, (4, 32, 128)).astype(np.float16))
    sparse_npy(os.path.join(directory, 'k.npy'), (blocks, 128, 8, 128), np.float16)
    sparse_npy(os.path.join(directory, 'v.npy'), (blocks, 128, 8, 128), np.float16)
    np.save(os.path.join(directory, 'table.npy'), table)
    np.save(os.path.join(directory, 'lens.npy'), lens)
    case = {"op": "PagedAttention", "param": {"headNum": 32, "kvHeadNum": 8, "qkScale": 0.0884},
            "inputs": [{"file": "q.npy", "dtype": "float16"}, {"file": "k.npy", "dtype": "float16"},
                       {"file": "v.npy", "dtype": "float16"}, {"file": "table.npy", "dtype": "int32"},
                       {"file": "lens.npy", "dtype": "int32"}],
            "outputs": [{"file": "out.npy"}]}
    with open(os.path.join(directory, 'case.json'), 'w') as f:
        json.dump(case, f)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
