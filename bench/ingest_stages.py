"""Where `actiondex ingest` spends its time, stage by stage, at N synthetic actions.

    .venv/bin/python -m bench.ingest_stages [--actions 100000] [--runs 2] [--baseline DIR]

The synthetic corpus (bench.synthetic) is written as agent-actions files, then ingested as
`actiondex ingest` does (``ingest_paths``: normalise and promote each site in a transaction of
its own) and indexed (``ActionIndex.sync``), into SQLite, under cProfile. The table gives each
stage's share of the time (cumulative time of its functions, so a stage inside another is
counted in both: the vectors inside the text and vector fields, say) and, without the
profiler, the actions stored per second. ``--baseline DIR``: a checkout of another commit
(``git worktree add DIR <commit>``), run in alternation with this one in the same run, each
in a fresh interpreter, so a shared machine's load falls on both alike.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import logging
import os
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# (stage, functions whose cumulative time it is: (file suffix, function name)); the second
# suffix of a pair is where an older tree (49d4cd5, say) kept the function.
STAGES = [
    ("normalising", [("registry/formats/__init__.py", "normalise")]),
    ("history", [("registry/store/history.py", "begin"), ("registry/store/history.py", "write")]),
    ("store clock", [("registry/db/clock.py", "next_change")]),
    (
        "text and vector fields",
        [("registry/store/rows.py", "with_index_parts"), ("registry/store.py", "with_index_parts")],
    ),
    (
        "  of which vectors",
        [("registry/index/vectors.py", "stored"), ("registry/semantic.py", "stored")],
    ),
    (
        "promotion (all of it)",
        [("registry/store/promotion.py", "promote_site"), ("registry/service.py", "promote_site")],
    ),
    ("commit", [("registry/db/engine.py", "transaction"), ("registry/db.py", "transaction")]),
    ("index commit (sync)", [("registry/index/handle.py", "sync"), ("registry/index.py", "sync")]),
]


def write_files(n: int, folder: Path) -> None:
    from bench.synthetic import manifests

    for m in manifests(n):
        site = {"name": m.site_name, "url": f"https://{m.site}"}
        if m.site_description:
            site["description"] = m.site_description
        actions = [
            {
                "name": a.name,
                "title": a.title,
                "description": a.description,
                "effect": a.effect,
                "input": a.input_schema,
            }
            for a in m.actions
        ]
        host_dir = folder / m.site
        host_dir.mkdir()
        manifest = {"schema": "agent-actions/0.1", "site": site, "actions": actions}
        (host_dir / "agent-actions.json").write_text(json.dumps(manifest))


def one_run(folder: Path, n: int, profiled: bool) -> dict[str, float]:
    """Ingest and index the ``n`` actions written in ``folder`` into a fresh store; the stages'
    seconds (or the rate). Imports the tree first on sys.path (an older one's modules)."""
    from actiondex.ingest import ingest_paths
    from registry.config import Settings
    from registry.index import ActionIndex

    try:
        from registry.db.engine import make_engine, migrate, transaction
    except ImportError:  # a tree from before registry.db was a package
        from registry.db import make_engine, migrate, transaction  # type: ignore[no-redef]

    logging.getLogger("alembic").setLevel(logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp) / "data", database_url="")
        engine = make_engine(settings)
        migrate(engine)
        profile = cProfile.Profile() if profiled else None
        started = time.perf_counter()
        if profile:
            profile.enable()
        ingest_paths(engine, [folder], None)
        with transaction(engine) as session:
            ActionIndex.open(settings.index_path).sync(session)
        if profile:
            profile.disable()
        took = time.perf_counter() - started
        engine.dispose()
    if profile is None:
        return {"actions/s": n / took, "seconds": took}
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    out = {"total (profiled)": took}
    for stage, functions in STAGES:
        out[stage] = sum(
            cumulative
            for (path, _, name), (_, _, _, cumulative, _) in stats.items()
            if any(path.endswith(suffix) and name == fn for suffix, fn in functions)
        )
    return out


def child(tree: Path, folder: Path, n: int, profiled: bool) -> dict[str, float]:
    """``one_run`` in a fresh interpreter importing the code of ``tree`` (this file is loaded
    by its path, so the tree's own ``registry`` and ``actiondex`` are the ones measured)."""
    code = (
        "import json, sys, importlib.util; sys.path.insert(0, sys.argv[1]);"
        "spec = importlib.util.spec_from_file_location('_stages', sys.argv[4]);"
        "mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod);"
        "import registry; assert registry.__file__.startswith(sys.argv[1]), registry.__file__;"
        "print(json.dumps(mod.one_run(__import__('pathlib').Path(sys.argv[5]),"
        " int(sys.argv[2]), sys.argv[3] == '1')))"
    )
    env = dict(os.environ, PYTHONPATH=str(tree))
    flag = "1" if profiled else "0"
    args = [sys.executable, "-c", code, str(tree), str(n), flag, __file__, str(folder)]
    done = subprocess.run(args, capture_output=True, text=True, env=env, check=False, cwd=tree)
    if done.returncode != 0:
        raise SystemExit(f"the run in {tree} failed: {done.stderr.strip().splitlines()[-1:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=2, help="runs of each tree, alternating")
    parser.add_argument("--baseline", type=Path, metavar="DIR", help="checkout to compare with")
    args = parser.parse_args()
    trees = [("this tree", Path(__file__).resolve().parents[1])]
    if args.baseline:
        trees.insert(0, ("baseline", args.baseline.resolve()))
    rows: list[tuple[str, str, dict[str, float]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_files(args.actions, folder)  # one corpus for every tree and run
        for run in range(args.runs):
            for label, tree in trees:
                for profiled in (False, True):
                    result = child(tree, folder, args.actions, profiled)
                    kind = "profiled" if profiled else "plain"
                    rows.append((f"{label} #{run + 1}", kind, result))
                    print(label, run + 1, kind, result, flush=True)
    print(f"\n{args.actions:,} synthetic actions, `actiondex ingest` path + index sync, SQLite")
    print(f"{'tree / run':<16}{'actions/s':>10}" + "".join(f"{s:>14.14}" for s, _ in STAGES))
    for (label, kind, result), (_, _, profiled) in zip(rows[0::2], rows[1::2], strict=True):
        assert kind == "plain"
        total = profiled["total (profiled)"]
        shares = "".join(f"{profiled[s] / total:>13.0%} " for s, _ in STAGES)
        print(f"{label:<16}{result['actions/s']:>10,.0f}{shares}")


if __name__ == "__main__":
    main()
