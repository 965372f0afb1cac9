"""The default size sweep: sizes chosen to break tiling, within a budget.

For a size whose tile (block) size t is known the values are 1, t - 1, t, t + 1 and a prime a few
tiles long (the first prime above 4t: several full tiles and a tail); without a known tile, 1 and
the primes 97 and 4099 (as `infer.default_sweep`). Several sizes are combined without the Cartesian
product: first the diagonal (every size at t + 1, at 1, at t - 1, at t, at its prime), then each
size through its values with the others at their tile (exact multiples, so the tail comes from that
size alone). Bindings whose cost exceeds the budget are left out; the first `limit` are kept, and
returned smallest first.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

PRIMES = (97, 4099)  # without a tile: a two-digit and a four-digit prime (infer.PRIMES)
DEFAULT_BUDGET = 1 << 22  # elements: cost of one binding (default: the product of its sizes)
DEFAULT_LIMIT = 12
LEVELS = ("above", "one", "below", "tile", "prime")  # diagonal order: tails first

Tiles = Mapping[str, int | Sequence[int] | None] | Sequence[int]


def next_prime(n: int) -> int:
    """The smallest prime >= n."""
    candidate = max(2, n)
    while any(candidate % d == 0 for d in range(2, math.isqrt(candidate) + 1)):
        candidate += 1
    return candidate


def _tiles_of(tiles: Tiles, name: str) -> list[int]:
    found = tiles.get(name) if isinstance(tiles, Mapping) else tiles
    if found is None:
        return []
    values = [found] if isinstance(found, int) else list(found)
    return sorted({int(t) for t in values if int(t) > 1})


def levels(tiles: Sequence[int]) -> dict[str, int]:
    """The named values of one size: one, below (t - 1), tile, above (t + 1), prime; t the largest
    tile."""
    if not tiles:
        return {"one": 1, "below": PRIMES[0], "tile": PRIMES[0], "above": PRIMES[0], "prime": PRIMES[1]}
    t = max(tiles)
    return {"one": 1, "below": t - 1, "tile": t, "above": t + 1, "prime": next_prime(4 * t + 1)}


def candidates(tiles: Sequence[int]) -> list[int]:
    """Every value one size takes: 1, t - 1, t, t + 1 for each tile t, and the prime."""
    values = set(levels(tiles).values())
    for t in tiles:
        values |= {t - 1, t, t + 1}
    return sorted(v for v in values if v >= 1)


def size_sweep(size_names: Sequence[str], tiles: Tiles, budget: int = DEFAULT_BUDGET,
               cost: Callable[[Mapping[str, int]], int] | None = None,
               limit: int = DEFAULT_LIMIT) -> list[dict[str, int]]:
    """Bindings of `size_names` to sweep. `tiles`: per size name its tile size(s) (None: unknown),
    or one list for every name. `cost`: elements a binding needs (default: product of the sizes)."""
    if not size_names:
        return [{}]
    measure = cost or (lambda b: math.prod(b.values()))
    per_name = {name: _tiles_of(tiles, name) for name in size_names}
    named = {name: levels(per_name[name]) for name in size_names}
    values = {name: candidates(per_name[name]) for name in size_names}
    ordered: list[dict[str, int]] = []
    if len(size_names) == 1:
        name = size_names[0]
        ordered = [{name: v} for v in values[name]]
    else:
        ordered = [{name: named[name][level] for name in size_names} for level in LEVELS]
        base = {name: named[name]["tile"] for name in size_names}
        extra = max(len(v) for v in values.values())
        for level in LEVELS[:3] + LEVELS[4:]:  # one size at a time: tails, 1, primes
            for name in size_names:
                ordered.append({**base, name: named[name][level]})
        for i in range(extra):  # then the rest of each size's values (other tiles' edges)
            for name in size_names:
                if i < len(values[name]):
                    ordered.append({**base, name: values[name][i]})
    seen: set[tuple[int, ...]] = set()
    kept: list[dict[str, int]] = []
    for binding in ordered:
        key = tuple(binding[n] for n in size_names)
        if key in seen or measure(binding) > budget:
            continue
        seen.add(key)
        kept.append(binding)
        if len(kept) == limit:
            break
    if not kept:  # nothing fits: the smallest binding still runs
        kept = [{name: 1 for name in size_names}]
    return sorted(kept, key=lambda b: (measure(b), tuple(b[n] for n in size_names)))
