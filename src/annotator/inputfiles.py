"""Files from outside, read with bounds: regular files only, a size limit, bounded JSON.

Every reader of a file the app did not write (draft cases, bundles, packages, SME YAML and
items, judged runs, the password file) goes through here, so a FIFO or a device never blocks
a command, a huge file is refused before it is read, and JSON nested deeper than any real
file is refused with a reason instead of exhausting the stack somewhere later.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path
from typing import IO, Any

# Real files nest a few levels (a case: about 6; a judged run: about 8); the stack of the
# parser and of every later recursive walk (pydantic, canonical JSON) stays far from its limit.
MAX_JSON_DEPTH = 64


class NotReadable(OSError):
    """A path that is not a regular file, or too large; ``strerror`` is the reason."""


class TooDeep(ValueError):
    """JSON (or YAML) nested deeper than :data:`MAX_JSON_DEPTH`."""

    def __init__(self, limit: int = MAX_JSON_DEPTH) -> None:
        super().__init__(f"nested deeper than {limit} levels")


def open_regular(path: str | os.PathLike[str]) -> IO[bytes]:
    """``path`` opened for reading in binary, refused unless it is a regular file.

    Opened without blocking and checked with fstat on the open descriptor, so a FIFO, a
    device or a file swapped for one after a check is refused, never read. Raises OSError
    (:class:`NotReadable` for the kind) and ValueError for a path with a NUL byte.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a folder, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise NotReadable(errno.EINVAL, "not a regular file (a folder, device, FIFO or"
                                            " socket)")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (see :func:`open_regular`)."""
    with open_regular(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > limit:
            raise NotReadable(errno.EFBIG, f"file of {size:,} bytes is larger than {limit:,}")
        chunks = []
        read = 0
        # In chunks: read(limit) would allocate the whole limit up front, whatever the size.
        while chunk := handle.read(min(2**20, limit + 1 - read)):
            read += len(chunk)
            if read > limit:  # a file that grows while read
                raise NotReadable(errno.EFBIG, f"file grew past {limit:,} bytes")
            chunks.append(chunk)
    return b"".join(chunks)


def loads_bounded(text: str | bytes, *, max_depth: int = MAX_JSON_DEPTH, **options: Any) -> Any:
    """``json.loads(text, **options)``, refusing nesting deeper than ``max_depth``.

    Raises ValueError (json.JSONDecodeError, :class:`TooDeep`, UnicodeDecodeError) for
    anything that is not bounded JSON: the parser's own RecursionError becomes TooDeep.
    """
    try:
        value = json.loads(text, **options)
    except RecursionError:
        raise TooDeep(max_depth) from None
    if depth(value, max_depth) > max_depth:
        raise TooDeep(max_depth)
    return value


def depth(value: Any, stop: int) -> int:
    """How deep lists and dicts nest in ``value`` (a scalar is 0), counting stops past ``stop``."""
    deepest = 0
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, level = pending.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        level += 1
        deepest = max(deepest, level)
        if deepest > stop:
            return deepest
        pending.extend((child, level) for child in children)
    return deepest


def read_json_file(path: Path, limit: int, **options: Any) -> Any:
    """A regular file of at most ``limit`` bytes, parsed as bounded UTF-8 JSON.

    OSError when it cannot be read, ValueError when it is not bounded JSON.
    """
    return loads_bounded(read_regular(path, limit).decode("utf-8"), **options)


def unstorable_text(value: Any) -> str | None:
    """Why a JSON value holds text no store can keep (a lone surrogate or a NUL), or None."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
        elif isinstance(item, str):
            if "\x00" in item:
                return "a text holds a NUL character (\\u0000), which is not text"
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return ("a text holds a lone surrogate (an escape such as \\ud800 without its"
                        " pair), which is not text")
    return None


def files_named(paths: list[Path], suffixes: tuple[str, ...]) -> list[Path]:
    """Files named, and the files with one of ``suffixes`` in folders named (recursively),
    in a stable order."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            out += sorted(p for p in path.rglob("*") if p.suffix in suffixes and p.is_file())
        else:
            out.append(path)
    return out
