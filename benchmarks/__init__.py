"""Speed and size measurements of posviz, run from the repository root as modules: python -m benchmarks.NAME."""
