"""The vector index's rows kept on disk beside the text index, so a process that searches does
not read every action's vector from the store each time it starts.

Without it, every `actiondex find` and every start of `serve` or `mcp` read every action's
stored vector (registry.index.vector_rows): 0.48 s at 10,000 actions, 16 s at a million
(bench.find_bench; 1.7 s from the file). With it, such a process loads one file
(``<index_path>/vectors-<model>-v<INDEX_VERSION>.npz``) and reads from the store only the sites
changed since the file's watermark, as the text index does (registry.index.changes).

Derived and disposable, like the text index: a missing, unreadable or inconsistent file is
ignored (every vector is read from the store again), another model or INDEX_VERSION has a file
of its own, and deleting it costs only that one full read. A process saves it after a full
read and whenever the sites it read again since its last save reach a tenth of all sites; it
writes a temporary file and renames it over the old, so a reader sees the old file or the new,
and two processes saving at once each leave a complete one. Only numbers, the ids' ASCII and
UTF-8 text are stored (no pickle): ``np.load`` runs no code from the file.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import numpy as np

from registry.index.parts import INDEX_VERSION
from registry.index.vector_rows import Table
from registry.index.vectors import Model

SAVE_SHARE = 10  # save again once a tenth of the sites were read since the last save
SAVE_MIN = 50  # ... and at least this many


def path_for(root: Path, model: Model) -> Path:
    return root / f"vectors-{model.name}-v{INDEX_VERSION}.npz"


def load(root: Path, model: Model) -> tuple[Table, int] | None:
    """The cached rows and their watermark, or None (no file, or one not to trust)."""
    try:
        with path_for(root, model).open("rb") as file:
            data = np.load(file, allow_pickle=False)
            if not isinstance(data, np.lib.npyio.NpzFile):
                return None
            watermark = int(data["watermark"])
            hosts = _words(data["hosts"])
            counts = data["counts"].astype(np.int64)
            ids, steps, site_vectors = data["ids"], data["steps"], data["sites"]
    except (OSError, KeyError, ValueError, UnicodeDecodeError, zipfile.BadZipFile):
        return None
    if not (
        len(counts) == len(hosts) == len(site_vectors)
        and int(counts.sum()) == len(ids) == len(steps)
        and ids.dtype.kind == "S"  # a file of before, its ids as text, is read again
        and steps.dtype == np.uint8  # a file of before, its steps widened to int8: read again
        and steps.shape[1:] == (model.kept_dims // 2,)
        and site_vectors.dtype == np.float32
        and site_vectors.shape[1:] == (model.kept_dims,)
    ):
        return None
    return Table(hosts, counts, ids, steps, site_vectors), watermark


def save(root: Path, model: Model, table: Table, watermark: int) -> bool:
    """Write the rows; False (and nothing written) when they cannot be, which only costs the
    next process a full read."""
    if any("\n" in host for host in table.hosts):
        return False
    target = path_for(root, model)
    temp = target.with_name(f".{target.name}-{os.getpid()}.tmp")
    try:
        with temp.open("wb") as out:
            np.savez(
                out,
                watermark=np.int64(watermark),
                hosts=_bytes(table.hosts),
                counts=table.counts,
                ids=table.ids,
                steps=table.steps,
                sites=table.vectors.astype(np.float32),
            )
        os.replace(temp, target)
    except OSError:
        temp.unlink(missing_ok=True)
        return False
    return True


def _bytes(words: list[str]) -> np.ndarray:
    return np.frombuffer("\n".join(words).encode(), np.uint8)


def _words(data: np.ndarray) -> list[str]:
    text = data.tobytes().decode()
    return text.split("\n") if text else []
