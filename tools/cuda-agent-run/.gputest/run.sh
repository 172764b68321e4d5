#!/bin/bash
# GPU smoke test of cuda-agent-run; everything goes to $OUT.
G=$(dirname "$0"); R=$G/cuda-agent-run
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; ldd --version | head -1
echo "== probe"; $R --probe; echo "rc=$?"
echo "== b"; $R $G/b --time --json; echo "rc=$?"
echo "== b inputs from previous out"; $R $G/b --inputs $G/b/out --out $G/b/out2 --json; echo "rc=$?"; cmp $G/b/out/res0.npy $G/b/out2/res0.npy && echo same-res0
for t in fault oob inwrite nokernel mixed; do echo "== $t"; $R $G/$t --json; echo "rc=$?"; done
echo "== copy (2^26 f32, expect ~127us floor)"; $R $G/copy --time --runs 30 --json | cut -c1-2000; echo "rc=$?"
python3 $G/check.py $G 2>&1 | tail -5
