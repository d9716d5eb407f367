"""The files laid out beside a local manifest, read for the documents it references: the one
rule of `actiondex validate FILE` and `actiondex ingest` (an owner checks, or loads, an
ai-plugin.json or api-catalog together with the OpenAPI published beside it). A reference is
read from a file only when it is on the manifest's own site and the file lies under the site
root (the folder holding .well-known, else the manifest's folder), at the reference's path.
Every file read is said: validate adds a ``read-local-file`` diagnostic, ingest lists it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from registry.formats import MAX_BYTES
from registry.model.schemas import Diagnostic


@dataclass
class Beside:
    """``resolve(url)``: the bytes of the file beside ``path`` that ``url`` names, or None;
    ``read`` records (url, file) of each file read."""

    path: Path
    url: str  # where the manifest itself will be served
    read: dict[str, Path] = field(default_factory=dict)

    def __call__(self, reference: str) -> bytes | None:
        target = self.file_for(reference)
        if target is None:
            return None
        self.read[reference] = target
        return target.read_bytes()[: MAX_BYTES + 1]

    def file_for(self, reference: str) -> Path | None:
        folder = self.path.resolve().parent
        root = next(
            (p.parent for p in (folder, *folder.parents) if p.name == ".well-known"), folder
        )
        parts, origin = urlsplit(reference), urlsplit(self.url)
        if (parts.scheme, parts.netloc) != (origin.scheme, origin.netloc):
            return None
        target = (root / unquote(parts.path).lstrip("/")).resolve()
        if not target.is_relative_to(root) or not target.is_file():
            return None
        if target == self.path.resolve():
            return None
        return target

    def diagnostics(self) -> list[Diagnostic]:
        return [
            Diagnostic(
                code="read-local-file",
                severity="info",
                path="$",
                message=f"read {url} from the local file {target} beside it",
            )
            for url, target in self.read.items()
        ]
