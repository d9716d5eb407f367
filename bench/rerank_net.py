"""Fitting the re-rank's net (registry.search.learned.Net) on training requests: ListNet's loss
(for each request, the cross-entropy of the softmax of its candidates' scores against its wanted
ones, shared equally), an L2 penalty, Adam from a seeded start. Used by bench.learned_mix.

Each request's candidates form one list: ``Rows`` (bench.learned_mix) gives each its features,
its labels (1: wanted) and its weight; requests with no wanted candidate teach nothing here and
are left out.
"""

from __future__ import annotations

import numpy as np

from registry.search.learned import Net

Rows = list[tuple[np.ndarray, np.ndarray, float]]  # (features, labels, weight) per request


def _softmax_by_list(scores: np.ndarray, lists: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The softmax of ``scores`` within each list (``lists``: each row's list, ``starts``: the
    first row of each)."""
    top = np.maximum.reduceat(scores, starts)[lists]
    e = np.exp(scores - top)
    return e / np.add.reduceat(e, starts)[lists]


def fit_net(
    rows: Rows,
    l2: float,
    units: int = 32,
    steps: int = 1500,
    rate: float = 0.01,
    seed: int = 0,
    fitted: str = "",
) -> Net:
    """A Net of ``units`` hidden units (0: linear) fitted listwise on ``rows``."""
    kept = [(x, y, w) for x, y, w in rows if y.any()]
    x = np.vstack([r for r, _, _ in kept])
    target = np.concatenate([y / y.sum() for _, y, _ in kept])
    sizes = np.array([len(r) for r, _, _ in kept])
    lists = np.repeat(np.arange(len(kept)), sizes)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    weight = np.array([w for _, _, w in kept])
    weight = (weight / weight.sum())[lists]
    mean, scale = x.mean(0), x.std(0)
    scale[scale < 1e-9] = 1.0  # a feature that never varies (the site's, re-ranking): as it is
    z = (x - mean) / scale
    rng = np.random.default_rng(seed)
    features = x.shape[1]
    params = [
        rng.normal(0.0, 0.3, (features, units)),
        np.zeros(units),
        rng.normal(0.0, 0.3, units),
        np.zeros(features),
    ]
    first = [np.zeros_like(p) for p in params]
    second = [np.zeros_like(p) for p in params]
    for step in range(1, steps + 1):
        hidden = np.tanh(z @ params[0] + params[1])
        scores = hidden @ params[2] + z @ params[3]
        d_scores = weight * (_softmax_by_list(scores, lists, starts) - target)
        d_hidden = np.outer(d_scores, params[2]) * (1.0 - hidden**2)
        grads = [
            z.T @ d_hidden + 2 * l2 * params[0],
            d_hidden.sum(0),
            hidden.T @ d_scores + 2 * l2 * params[2],
            z.T @ d_scores + 2 * l2 * params[3],
        ]
        for i, grad in enumerate(grads):  # Adam
            first[i] = 0.9 * first[i] + 0.1 * grad
            second[i] = 0.999 * second[i] + 0.001 * grad**2
            move = (first[i] / (1 - 0.9**step)) / (np.sqrt(second[i] / (1 - 0.999**step)) + 1e-8)
            params[i] -= rate * move
    return Net(mean, scale, params[0], params[1], params[2], params[3], fitted=fitted)


def averaged(nets: list[Net], fitted: str = "") -> Net:
    """One Net whose score is the mean of ``nets``' (fitted on the same rows, so standardised
    alike): their hidden units side by side, each output weighed 1/len(nets)."""
    first, share = nets[0], 1.0 / len(nets)
    if any(not np.array_equal(n.mean, first.mean) for n in nets):
        raise ValueError("nets fitted on other rows cannot be averaged")
    return Net(
        first.mean,
        first.scale,
        np.hstack([n.hidden for n in nets]),
        np.concatenate([n.hidden_bias for n in nets]),
        np.concatenate([n.out * share for n in nets]),
        sum(n.linear for n in nets) * share,
        fitted=fitted,
    )
