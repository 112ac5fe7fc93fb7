"""scripts/check-display.sh: a missing display or missing Qt system library is a clear message
with the install command, not a Qt abort. A stand-in `ldd` plays the system's answer."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "check-display.sh"


def _run(tmp_path: Path, ldd_output: str | None, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items()
            if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    if ldd_output is not None:
        fake = tmp_path / "bin"
        fake.mkdir()
        (fake / "ldd").write_text(f"#!/bin/sh\ncat <<'OUT'\n{ldd_output}\nOUT\n")
        (fake / "ldd").chmod(0o755)
        base["PATH"] = f"{fake}:{base['PATH']}"
    return subprocess.run(["bash", str(SCRIPT), sys.executable], env={**base, **env},
                          capture_output=True, text=True, timeout=60)


def test_no_display_is_said_plainly(tmp_path: Path) -> None:
    result = _run(tmp_path, None)
    assert result.returncode == 1
    assert "no display" in result.stderr and "$DISPLAY" in result.stderr


def test_missing_xcb_cursor_names_the_apt_and_dnf_commands(tmp_path: Path) -> None:
    ldd = ("\tlibxcb-cursor.so.0 => not found\n"
           "\tlibxcb-icccm.so.4 => not found\n"
           "\tlibxcb-cursor.so.0 => not found\n"
           "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f)")
    result = _run(tmp_path, ldd, DISPLAY=":0")
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert "  Debian/Ubuntu:  sudo apt-get install libxcb-cursor0 libxcb-icccm4" in lines
    assert "  Fedora/RHEL:    sudo dnf install xcb-util-cursor xcb-util-wm" in lines
    assert "libqxcb.so" in result.stderr


def test_wayland_only_checks_the_wayland_plugin(tmp_path: Path) -> None:
    result = _run(tmp_path, "\tlibwayland-cursor.so.0 => not found", WAYLAND_DISPLAY="w-0")
    assert result.returncode == 1
    assert "libqwayland.so" in result.stderr
    assert "sudo apt-get install libwayland-cursor0" in result.stderr


def test_all_libraries_present_passes_quietly(tmp_path: Path) -> None:
    ldd = "\tlibxcb-cursor.so.0 => /lib/x86_64-linux-gnu/libxcb-cursor.so.0 (0x00007f)"
    result = _run(tmp_path, ldd, DISPLAY=":0")
    assert (result.returncode, result.stderr) == (0, "")


def test_offscreen_needs_no_display(tmp_path: Path) -> None:
    assert _run(tmp_path, None, QT_QPA_PLATFORM="offscreen").returncode == 0
