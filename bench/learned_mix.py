"""Fits registry.search.learned's models on training requests only: WEIGHTS (the first stage
by meaning's learned mix) and the re-rank's net (RERANK_NET), compares them with the fixed mix,
RRF, BM25 and the shipped net on held-out training requests, and with ``--test`` scores the
chosen ones once on the test sets.

    .venv/bin/python -m bench.learned_mix --colt DIR --metatool DIR [--fit N] [--check N]
                                          [--sample N] [--test] [--sites] [--dims N]
                                          [--units N ...] [--net-l2 X ...] [--write]
                                          [--real-sites DIR]

Data (bench.fusion_bench): ToolLens's official TRAIN split (read from a COLT clone) and
MetaTool's single-tool requests left out of its seeded 2,000-request test sample. From each a
seeded ``--fit`` requests fit the weights and ``--check`` other ones compare the settings; no
test request is read before ``--test``. Each fit request's candidates (as
ACTIONDEX_MEANING_FIRST_STAGE on finds them: BM25's first 50 and the vector index's) are
labelled 1 when the request names the tool, 0 otherwise; a logistic model (Newton's method,
an L2 penalty of ``--l2``, each request weighing the same, each set half) is fitted over
their FEATURES. It prints the weights to paste into registry/search/learned.py. The re-rank's
candidates (BM25's first 50; ``--sites``: and the site stage's, as shipped) fit nets of each
``--units`` hidden units (0: linear) and ``--net-l2`` (bench.rerank_net, listwise);
``--write`` writes the one chosen to registry/search/rerank_net.json when it beats the shipped.
``--real-sites DIR`` (with ``--sites``; DIR: a ``bench.realsites --data`` crawl of the plugin
store) adds a third set: the same MetaTool fit and check requests whose tools are store sites,
asked in-process as GET /find?group=site over the crawled real manifests, a candidate wanted
when its site is; the three sets then weigh a third each.
``--dims 64`` (or 256) measures WordLlama's vectors at other than the shipped 128 dimensions,
the vector index keeping at most the first 64 of each.
"""

from __future__ import annotations

import argparse
import logging
import random
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from bench import metatool, toollens
from bench.fusion_bench import cached_queries, metatool_split
from bench.meaning_bench import use, wordllama_dims
from bench.realsite_requests import BySite, mapped, metatool_sites
from bench.realsite_web import load_plugins
from bench.relevance import evaluate, ingest, ours, ours_by_site
from bench.rerank_net import Rows, averaged, fit_net
from registry.config import Settings
from registry.index import vectors
from registry.search import learned, meaning


def collected(rank: Callable[[str], list[str]], ids: dict, queries: list[dict]) -> Rows:
    """Each request's candidates' features and labels, as the learned mix sees them."""
    seen: list[tuple[np.ndarray, list[tuple[str, str]]]] = []
    plain = learned.features

    def recording(docs, request, top, words, cosines, site, facets, pool=None):  # type: ignore[no-untyped-def]
        rows = plain(docs, request, top, words, cosines, site, facets, pool)
        keys = [
            (docs.doc(a).get_first("site") or "", docs.doc(a).get_first("key") or "")
            for _, a in top
        ]
        seen.append((rows, keys))
        return rows

    out: Rows = []
    learned.features = recording
    try:
        for q in queries:
            seen.clear()
            rank(q["query"])
            if not seen:
                continue  # a short request: no first stage by meaning
            rows, keys = seen[-1]
            wanted = set(q["relevant"])
            labels = np.array([ids.get(k) in wanted for k in keys], np.float64)
            if labels.any():
                out.append((rows, labels, 1.0 / len(queries)))
    finally:
        learned.features = plain
    return out


def fit(rows: Rows, l2: float, pairwise: bool = False) -> np.ndarray:
    """Logistic regression by Newton's method, the bias last; each request weighs its share.
    ``pairwise``: over each request's (wanted - unwanted) candidate pairs instead (RankNet's
    loss, no bias: a request's candidates are only ever compared with each other)."""
    xs, ys, ws = [], [], []
    for r, labels, w in rows:
        if pairwise:
            good, bad = r[labels > 0], r[labels == 0]
            if not len(bad):
                continue
            diffs = (good[:, None, :] - bad[None, :, :]).reshape(-1, r.shape[1])
            xs.append(np.hstack([diffs, np.zeros((len(diffs), 1))]))
            ys.append(np.ones(len(diffs)))
            ws.append(np.full(len(diffs), w / len(diffs)))
        else:
            xs.append(np.hstack([r, np.ones((len(r), 1))]))
            ys.append(labels)
            ws.append(np.full(len(r), w / len(r)))
    x, y, each = np.vstack(xs), np.concatenate(ys), np.concatenate(ws)
    each /= each.sum()
    w = np.zeros(x.shape[1])
    penalty = l2 * np.eye(x.shape[1])
    penalty[-1, -1] = 0.0 if not pairwise else 1.0  # the bias goes free (pairwise: none)
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        grad = x.T @ (each * (p - y)) + penalty @ w
        hess = (x * (each * p * (1 - p))[:, None]).T @ x + penalty
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--colt", type=Path, required=True, metavar="DIR")
    parser.add_argument("--toollens", type=Path, default=toollens.DEFAULT_DATA, metavar="DIR")
    parser.add_argument("--metatool", type=Path, default=metatool.DEFAULT_DATA, metavar="DIR")
    parser.add_argument("--model", default="wordllama")
    parser.add_argument(
        "--dims",
        type=int,
        choices=(64, 128, 256),
        default=vectors.WORDLLAMA_DIMS,
        help="WordLlama's dimensions (default: the shipped %(default)s; an experiment)",
    )
    parser.add_argument("--fit", type=int, default=2000, metavar="N")
    parser.add_argument("--check", type=int, default=1000, metavar="N")
    parser.add_argument("--sample", type=int, default=2000, metavar="N", help="MetaTool test")
    parser.add_argument("--l2", type=float, nargs="+", default=[1e-4, 1e-3, 1e-2])
    parser.add_argument("--test", action="store_true", help="then score the chosen on test")
    parser.add_argument(
        "--sites",
        action="store_true",
        help="the re-rank's candidates with the site stage's (ACTIONDEX_MEANING_SITES, the "
        "sites' vectors kept, as shipped): refit the re-rank's net only",
    )
    parser.add_argument("--units", type=int, nargs="+", default=[0, 32], metavar="N")
    parser.add_argument("--net-l2", type=float, nargs="+", default=[1e-3], metavar="X")
    parser.add_argument(
        "--seeds", type=int, default=1, metavar="N", help="each net: the mean of N seeded fits"
    )
    parser.add_argument(
        "--write", action="store_true", help="write the chosen net to registry/search/"
    )
    parser.add_argument(
        "--real-sites",
        type=Path,
        metavar="DIR",
        help="with --sites: also fit and choose on MetaTool's requests over the real sites "
        "crawled into DIR by bench.realsites --data DIR",
    )
    args = parser.parse_args()
    if args.sites and args.test:
        parser.error("--sites refits the re-rank only: score the test sets with bench.site_stage")
    if args.real_sites and not args.sites:
        parser.error("--real-sites fits the re-rank with the site stage: add --sites")
    if args.real_sites and not (args.real_sites / "actiondex.db").is_file():
        parser.error(f"--real-sites: no bench.realsites crawl in {args.real_sites}")
    logging.getLogger("alembic").setLevel(logging.WARNING)
    tl_tools, tl_sets = toollens.load(args.toollens)
    mt_tools, mt_sets = metatool.load(args.metatool)
    size = args.fit + args.check
    mt_train, mt_test = metatool_split(mt_sets[0][1], args.sample, size)
    tl_train = toollens.train_queries(args.colt, size)
    random.Random(5).shuffle(tl_train)
    fit_sets = {"ToolLens": tl_train[: args.fit], "MetaTool": mt_train[: args.fit]}
    check_sets = {
        "ToolLens": [("TL train (held)", tl_train[args.fit :])],
        "MetaTool": [("MT train (held)", mt_train[args.fit :])],
    }
    use(args.model)
    wordllama_dims(args.dims)
    cached_queries(args.model)
    with tempfile.TemporaryDirectory() as tmp:
        ranks, ids_of = {}, {}
        for name, tools, domain in (
            ("ToolLens", tl_tools, toollens.DOMAIN),
            ("MetaTool", mt_tools, metatool.DOMAIN),
        ):
            (Path(tmp) / name).mkdir()
            settings, ids = ingest(tools, Path(tmp) / name, domain)
            ranks[name] = (ours(settings, ids, sites=args.sites), ours(settings, ids, True))
            ids_of[name] = ids
        if args.real_sites:
            sites = metatool_sites(load_plugins(), args.metatool)
            fit_sets["real sites"] = mapped(mt_train[: args.fit], sites)
            check_sets["real sites"] = [("real sites (held)", mapped(mt_train[args.fit :], sites))]
            by_site = ours_by_site(Settings(data_dir=args.real_sites, database_url=""))
            ranks["real sites"], ids_of["real sites"] = (by_site, by_site), BySite()
        fitted, shipped = {}, learned.RERANK_NET
        for stage in ("rerank",) if args.sites else ("rerank", "first stage"):
            rows: Rows = []
            meaning.RERANK, meaning.FUSION = "learned", "learned"
            for name, queries in fit_sets.items():
                rank = ranks[name][0 if stage == "rerank" else 1]
                part = collected(rank, ids_of[name], queries)
                rows += [(r, labels, w / len(fit_sets)) for r, labels, w in part]
                print(f"{stage}, {name}: {len(part)} fit requests with a wanted candidate")
            if stage == "rerank":
                for units in args.units:
                    for l2 in args.net_l2:
                        how = f"units={units} l2={l2} seeds={args.seeds}"
                        about = (
                            f"bench.learned_mix{' --sites' if args.sites else ''}"
                            f"{' --real-sites' if args.real_sites else ''} --fit {args.fit} "
                            f"--dims {args.dims}: listwise, {how}"
                        )
                        nets = [fit_net(rows, l2, units, seed=i) for i in range(args.seeds)]
                        fitted[(stage, how)] = averaged(nets, about)
                        print(f"{stage} net {how}: fitted", flush=True)
                continue
            for kind in ("pointwise", "pairwise"):
                for l2 in args.l2:
                    w = fit(rows, l2, kind == "pairwise")
                    fitted[(stage, f"{kind} l2={l2}")] = w
                    named = zip((*learned.FEATURES, "bias"), w, strict=True)
                    print(f"{stage} {kind} l2={l2}: " + ", ".join(f"{n}={v:.3f}" for n, v in named))
        settings_rows = [
            ("BM25 + mix re-rank", "off", None),
            ("learned re-rank, shipped net", "rerank", shipped),
            *[
                (f"BM25 + learned re-rank net {n}", "rerank", w)
                for (s, n), w in fitted.items()
                if s == "rerank"
            ],
            ("first stage, mix 0.5/0.5 (main)", "mix", None),
            ("first stage, rrf k=60 w=1", "rrf", None),
            *[
                (f"first stage, learned {n}", "learned", w)
                for (s, n), w in fitted.items()
                if s == "first stage"
            ],
        ]
        if args.sites:  # the site stage on: the shipped re-rank net against the refits
            settings_rows = [s for s in settings_rows if s[1] == "rerank"]
        means = scored("held-out training requests", settings_rows, check_sets, ranks)
        chosen = [
            max((s for s in settings_rows if s[1] == kind), key=lambda s: means[s[0]])
            for kind in ("rerank", "learned")
            if any(s[1] == kind for s in settings_rows)
        ]
        for label, _, w in chosen:
            print(f"chosen on held-out training requests: {label}")
            if not isinstance(w, learned.Net):
                print("WEIGHTS = np.array([" + ", ".join(f"{v:.4f}" for v in w) + "])")
            elif args.write and w is not shipped:
                learned.RERANK_FILE.write_text(w.json())
                print(f"written to {learned.RERANK_FILE}")
        if args.test:
            test_sets = {
                "ToolLens": [("TL test", tl_sets[0][1])],
                "MetaTool": [("MT single test", mt_test), ("MT multi", mt_sets[1][1])],
            }
            plain = [s for s in settings_rows if s[1] in ("off", "mix", "rrf")]
            scored(
                "test requests (scored once)",
                [*plain[:1], chosen[0], *plain[1:], chosen[1]],
                test_sets,
                ranks,
            )


def scored(title: str, settings: list, sets: dict, ranks: dict) -> dict[str, float]:
    """Each setting's NDCG@10 and Recall@5 on ``sets`` (bench.fusion_bench.table's layout);
    answers each one's mean NDCG@10."""
    print(f"\n{title}")
    names = [n for parts in sets.values() for n, _ in parts]
    print(f"{'setting':<36}" + "".join(f"{n[:18]:>18}" for n in names) + f"{'mean':>9}")
    print(" " * 36 + "   NDCG@10     R@5" * len(names))
    means = {}
    for label, fusion, weights in settings:
        meaning.FUSION, meaning.RRF_K, meaning.RRF_WEIGHT = fusion, 60, 1.0
        meaning.RERANK = "learned" if fusion == "rerank" else "mix"
        if fusion == "rerank":
            learned.RERANK_NET = weights
        elif weights is not None:
            learned.WEIGHTS = weights
        row = [
            evaluate(ranks[bench][0 if fusion in ("off", "rerank") else 1], queries)
            for bench, parts in sets.items()
            for _, queries in parts
        ]
        cells = "".join(f"{r[0]:>10.4f}{r[1]:>8.3f}" for r in row)
        means[label] = sum(r[0] for r in row) / len(row)
        print(f"{label:<36}{cells}{means[label]:>9.4f}", flush=True)
    return means


if __name__ == "__main__":
    main()
