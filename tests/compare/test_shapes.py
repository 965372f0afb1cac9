"""The default size sweep: tile edges and a prime per size, combined without the Cartesian product,
within the budget."""

from __future__ import annotations

import math

from lowercheck.compare.shapes import candidates, levels, next_prime, size_sweep


def test_values_of_one_size():
    assert next_prime(4097) == 4099 and next_prime(257) == 257 and next_prime(1) == 2
    assert candidates([1024]) == [1, 1023, 1024, 1025, 4099]
    assert candidates([]) == [1, 97, 4099]
    assert levels([64]) == {"one": 1, "below": 63, "tile": 64, "above": 65, "prime": 257}


def test_one_size_with_two_tiles():
    sweep = size_sweep(["n"], {"n": [256, 1024]})
    assert [b["n"] for b in sweep] == [1, 255, 256, 257, 1023, 1024, 1025, 4099]
    assert size_sweep(["n"], [256, 1024]) == sweep  # one list for every name


def test_two_sizes_without_the_cartesian_product():
    sweep = size_sweep(["m", "n"], {"m": 64, "n": 32}, limit=100)
    pairs = {(b["m"], b["n"]) for b in sweep}
    assert len(pairs) == len(sweep) < len(candidates([64])) * len(candidates([32]))
    assert {(65, 33), (1, 1), (63, 31), (64, 32), (257, 131)} <= pairs  # the diagonal
    assert {(65, 32), (64, 33), (1, 32), (64, 1), (257, 32), (64, 131)} <= pairs  # one at a time
    for name, tile in (("m", 64), ("n", 32)):
        assert {b[name] for b in sweep} == set(candidates([tile]))
    costs = [math.prod(b.values()) for b in sweep]
    assert costs == sorted(costs)


def test_limit_keeps_the_diagonal_first():
    sweep = size_sweep(["m", "n", "k"], {"m": 64, "n": 64, "k": 32}, limit=5, budget=10**9)
    assert len(sweep) == 5
    assert {tuple(b.values()) for b in sweep} == {(65, 65, 33), (1, 1, 1), (63, 63, 31), (64, 64, 32), (257, 257, 131)}


def test_budget_drops_large_bindings_and_cost_can_be_given():
    def matmul(b):
        return b["m"] * b["k"] + b["k"] * b["n"] + b["m"] * b["n"]

    budget = 40_000
    sweep = size_sweep(["m", "n", "k"], {"m": 64, "n": 64, "k": 64}, budget=budget, cost=matmul, limit=50)
    assert sweep and all(matmul(b) <= budget for b in sweep)
    assert {"m": 257, "n": 257, "k": 257} not in sweep  # 198147 elements
    assert {"m": 257, "n": 64, "k": 64} in sweep  # 37056 elements
    assert size_sweep(["m", "n"], {"m": 64, "n": 64}, budget=0) == [{"m": 1, "n": 1}]


def test_unknown_tiles_and_no_sizes():
    sweep = size_sweep(["n"], {"n": None})
    assert [b["n"] for b in sweep] == [1, 97, 4099]
    assert size_sweep([], {}) == [{}]
    first = size_sweep(["a", "b"], {"a": 16})
    assert first == size_sweep(["a", "b"], {"a": 16})
    assert {b["b"] for b in first} <= {1, 97, 4099}
