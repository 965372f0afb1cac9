"""Mismatch localisation on synthetic masks: each pattern is named, with its numbers."""

from __future__ import annotations

import numpy as np

from lowercheck.compare.localise import localise


def mask_1d(n: int, indices) -> np.ndarray:
    mask = np.zeros(n, bool)
    mask[indices] = True
    return mask


def test_none_and_all():
    assert localise(np.zeros((4, 4), bool)).kind == "none"
    found = localise(np.ones(10, bool))
    assert found.kind == "all" and found.count == 10


def test_tail_after_k_blocks():
    found = localise(mask_1d(1000, slice(768, None)))
    assert found.kind == "tail" and found.data == {"start": 768, "block": 256, "k": 3}
    assert "768 = 3*256" in found.text
    with_tile = localise(mask_1d(1000, slice(768, None)), tiles=[128, 1024])
    assert with_tile.data["block"] == 128 and with_tile.data["k"] == 6


def test_tail_with_some_right_elements_is_still_a_tail():
    mask = mask_1d(1000, slice(512, None))
    mask[600:620] = False  # zeros happen to be right there
    assert localise(mask).kind == "tail"


def test_sparse_late_indices_are_not_a_tail():
    found = localise(mask_1d(4096, [1024, 3001]))
    assert found.kind == "scattered" and "(1024,), (3001,)" in found.text


def test_one_row_and_the_last_row():
    mask = np.zeros((8, 16), bool)
    mask[3, 2:9] = True
    found = localise(mask)
    assert found.kind == "row" and found.data["row"] == 3 and not found.data["last"]
    assert "columns 2..8" in found.text
    mask = np.zeros((8, 16), bool)
    mask[7] = True
    found = localise(mask)
    assert found.kind == "row" and found.data["last"] and "boundary" in found.text


def test_one_column_and_the_last_column():
    mask = np.zeros((8, 16), bool)
    mask[:, 15] = True
    found = localise(mask)
    assert found.kind == "column" and found.data == {"column": 15, "last": True, "rows": [0, 7]}
    mask = np.zeros((8, 16), bool)
    mask[1:5, 4] = True
    assert localise(mask).data["column"] == 4


def test_every_other_element():
    found = localise(mask_1d(100, slice(1, None, 2)))
    assert found.kind == "stride" and found.data["stride"] == 2 and found.data["residue"] == 1
    assert found.text.startswith("every other element")
    found = localise(mask_1d(120, slice(0, None, 4)))
    assert found.kind == "stride" and "every 4th" in found.text


def test_block_of_rows_and_a_row_tail():
    mask = np.zeros((16, 32), bool)
    mask[4:8] = True
    found = localise(mask)
    assert found.kind == "rows" and found.data == {"rows": [4, 7]}
    mask = np.zeros((16, 32), bool)
    mask[8:] = True
    found = localise(mask, tiles=[8])
    assert found.kind == "rows" and "the tail after 1*8" in found.text and found.data["tail_block"] == 8


def test_column_tail_when_n_is_not_a_multiple_of_block_n():
    mask = np.zeros((8, 100), bool)
    mask[:, 64:] = True
    found = localise(mask, tiles=[64])
    assert found.kind == "columns" and found.data["columns"] == [64, 99] and "tail after 1*64" in found.text


def test_corner_block():
    mask = np.zeros((100, 100), bool)
    mask[64:, 64:] = True
    found = localise(mask, tiles=[64])
    assert found.kind == "block" and found.data == {"rows": [64, 99], "columns": [64, 99]}
    assert "tail after 1*64" in found.text


def test_flat_tail_inside_a_row():
    mask = np.zeros((4, 100), bool)
    mask.ravel()[256:] = True
    found = localise(mask)
    assert found.kind == "tail" and found.data["start"] == 256


def test_one_block_in_the_middle():
    found = localise(mask_1d(1024, slice(256, 512)))
    assert found.kind == "range" and found.data == {"start": 256, "stop": 512} and "1*256" in found.text


def test_single_element_and_scattered():
    mask = np.zeros((5, 5), bool)
    mask[4, 4] = True
    found = localise(mask)
    assert found.kind == "element" and found.data["index"] == [4, 4] and "last element" in found.text
    rng = np.random.default_rng(0)
    mask = np.zeros((20, 20), bool)
    mask.ravel()[rng.choice(400, 9, replace=False)] = True
    found = localise(mask)
    assert found.kind == "scattered" and found.count == 9 and len(found.data["first"]) == 5
    assert found.text.endswith(", ...")


def test_flat_mask_with_shape():
    mask = np.zeros(64, bool)
    mask[7 * 8:] = True
    found = localise(mask, shape=(8, 8))
    assert found.kind == "row" and found.data["row"] == 7 and found.data["last"]
    assert localise(mask, shape=(8, 8)).to_json()["kind"] == "row"
