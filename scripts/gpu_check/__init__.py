"""Helpers of scripts/gpu-check: stage benchmark bundles here, check and time them on the GPU machine.

Modules:
  manifest     find the staged bundles, validate them against bench/ops.py, write manifest.json
  runner       run `cuda-agent-run` and keep its JSON and stderr
  compare      tolerance checks (NumPy or torch arrays alike)
  torch_bench  float64 references on the GPU, torch eager / torch.compile timing
  report       the results table
  run          `gpu-check run`: the whole GPU session
  selftest     `gpu-check self-test`: CPU-only checks of all of the above
  fake_runner  a NumPy stand-in for cuda-agent-run, used by the self-test

Only numpy is needed on the CPU side (and nothing at all for staging); torch is optional.
"""
