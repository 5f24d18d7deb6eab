"""Nested observations and actions (Dict / Tuple spaces as dicts and tuples of arrays): rows,
stacks and selections of such trees, the runner's and the episodes' common helpers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def row_of(tree: Any, i: int) -> Any:
    if isinstance(tree, np.ndarray):
        return tree[i]
    if isinstance(tree, dict):
        return {k: row_of(v, i) for k, v in tree.items()}
    if isinstance(tree, tuple):
        return tuple(row_of(v, i) for v in tree)
    return np.asarray(tree)[i]


def stack(rows: Sequence[Any]) -> Any:
    first = rows[0]
    if isinstance(first, dict):
        return {k: stack([r[k] for r in rows]) for k in first}
    if isinstance(first, tuple):
        return tuple(stack([r[j] for r in rows]) for j in range(len(first)))
    return np.array(rows)  # rows of one shape and dtype: np.stack's checks cost more here


def rows_of(tree: Any, n: int) -> list:
    """The ``n`` rows of a batch as a list (views into the batch's arrays)."""
    if isinstance(tree, np.ndarray):
        return list(tree)
    return [row_of(tree, i) for i in range(n)]


def take(tree: Any, index: Any) -> Any:
    if isinstance(tree, dict):
        return {k: take(v, index) for k, v in tree.items()}
    if isinstance(tree, tuple):
        return tuple(take(v, index) for v in tree)
    return np.asarray(tree)[index]


def replace_rows(tree: Any, new: Any, mask: np.ndarray) -> Any:
    if isinstance(tree, dict):
        return {k: replace_rows(tree[k], new[k], mask) for k in tree}
    if isinstance(tree, tuple):
        return tuple(replace_rows(t, n, mask) for t, n in zip(tree, new))
    shape = (-1,) + (1,) * (np.ndim(tree) - 1)
    return np.where(mask.reshape(shape), new, tree)


def info_row(info: dict, i: int) -> dict:
    """Row ``i`` of a batched info dict (gymnasium's layout: ``_key`` masks say which rows hold
    ``key``)."""
    out = {}
    for key, value in info.items():
        if key.startswith("_"):
            continue
        mask = info.get("_" + key)
        if mask is not None and not mask[i]:
            continue
        out[key] = info_row(value, i) if isinstance(value, dict) else value[i]
    return out


def concat_tree(trees):
    first = trees[0]
    if isinstance(first, dict):
        return {k: concat_tree([x[k] for x in trees]) for k in first}
    if isinstance(first, tuple):
        return tuple(concat_tree([x[j] for x in trees]) for j in range(len(first)))
    return np.concatenate(trees)


def to_numpy(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: to_numpy(v) for k, v in x.items()}
    if isinstance(x, tuple):
        return tuple(to_numpy(v) for v in x)
    if hasattr(x, "detach"):  # a torch tensor
        return x.detach().cpu().numpy()
    return np.asarray(x)
