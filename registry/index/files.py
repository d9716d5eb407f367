"""On-disk layout of the index: generation folders, the ``current`` symlink, state.json.

    <index_path>/gen-<n>/            a complete tantivy index plus state.json
    <index_path>/current -> gen-<n>  swapped atomically (temp symlink + os.replace)

state.json records, per generation, the highest store-clock number it has indexed (its
watermark, registry.index.changes). It is written after the tantivy commit: a crash in between
only makes the next sync redo those sites, and redoing a site (delete by site term, add) is
idempotent.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

CURRENT = "current"
STATE = "state.json"
_GEN = re.compile(r"^gen-(\d+)$")


def generation_number(name: str) -> int | None:
    match = _GEN.match(name)
    return int(match.group(1)) if match else None


def current_target(root: Path) -> str | None:
    """The generation folder name ``current`` points at, or None."""
    try:
        return os.readlink(root / CURRENT)
    except OSError:
        return None


def new_generation(root: Path) -> Path:
    """Claim the next generation folder; mkdir is atomic, so two builders never share one."""
    while True:
        numbers = [generation_number(p.name) for p in root.iterdir()]
        folder = root / f"gen-{max((n for n in numbers if n is not None), default=0) + 1}"
        try:
            folder.mkdir()
            return folder
        except FileExistsError:
            continue


def swap_current(root: Path, folder: Path) -> None:
    """Point ``current`` at ``folder`` atomically; readers see the old or the new, never none."""
    temp = root / f".{CURRENT}-{os.getpid()}-{folder.name}"
    temp.unlink(missing_ok=True)
    temp.symlink_to(folder.name)  # relative, so the whole folder can be moved
    os.replace(temp, root / CURRENT)
    _fsync_dir(root)


def remove_older(root: Path, keep: Path, spare: str | None = None) -> None:
    """Best effort: delete generations older than ``keep`` except ``spare`` (the one ``current``
    pointed at until now). Newer ones may be being built.

    The generation just replaced is spared until the next rebuild: a handle still on it (a
    query in flight, or tantivy's meta.json watcher reloading after a late commit) opens its
    segment files again, and a file deleted under that reload reads as a corrupt segment.
    Readers that opened files before the unlink keep them (mmapped, on Linux).
    """
    limit = generation_number(keep.name) or 0
    for path in root.iterdir():
        number = generation_number(path.name)
        if number is not None and number < limit and path.name != spare:
            shutil.rmtree(path, ignore_errors=True)


def read_state(folder: Path) -> dict[str, Any]:
    try:
        data = json.loads((folder / STATE).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_state(folder: Path, state: dict[str, Any]) -> None:
    """Write state.json atomically: temp file, fsync, os.replace, fsync the folder."""
    temp = folder / f".{STATE}.{os.getpid()}.tmp"
    with open(temp, "w") as fh:
        json.dump(state, fh, sort_keys=True)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(temp, folder / STATE)
    _fsync_dir(folder)


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
