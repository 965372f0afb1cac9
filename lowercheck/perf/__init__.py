"""Performance on a GPU: a fair A/B benchmark of source and target, and its loophole detectors.

`device` (the one protocol; a fake device for tests, CUDA through torch), `stats` (medians and the
bootstrap interval of the ratio), `harness` (the measurement loop), `detectors` (LC401-LC403 from a
result), `targets` (device ceilings). Nothing here prints; the CLI wires it.
"""
