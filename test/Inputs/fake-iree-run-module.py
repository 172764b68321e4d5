#!/usr/bin/env python3
"""A stand-in for iree-run-module in CPU-only tests of the corpus's GPU run
(Inputs/iree_corpus_run.py): it runs nothing, and writes as the module's
outputs the reference outputs staged beside it (ref<i>.npy), as a right export
would (FAKE_IREE=ref, the default), or them plus one (FAKE_IREE=wrong), or fails
as a module that does not load (FAKE_IREE=fail).

    FAKE_IREE=ref|wrong|fail fake-iree-run-module.py --device=cuda --module=M \
        --function=F --input=@in0.npy ... --output=@out0.npy ...
"""
import os
import sys
from pathlib import Path

import numpy as np

MODE = os.environ.get("FAKE_IREE", "ref")


def main():
    flags = [a.split("=", 1) for a in sys.argv[1:]]
    module = Path(next(v for k, v in flags if k == "--module"))
    outputs = [v[1:] for k, v in flags if k == "--output"]
    if MODE == "fail":
        print("fake-iree-run-module: INTERNAL; failed to load the module", file=sys.stderr)
        return 1
    for i, path in enumerate(outputs):
        ref = np.load(module.parent / f"ref{i}.npy")
        np.save(path, ref + 1 if MODE == "wrong" else ref)
    return 0


if __name__ == "__main__":
    sys.exit(main())
