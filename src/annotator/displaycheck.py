"""Can Qt open a window here? A display, and the system libraries of Qt's platform plugin.

Asked by ``annotator gui`` before Qt loads and by ``scripts/check-display.sh`` (the demo
script), so that a missing display or library is one message naming the install command
instead of a Qt abort (exit 134) that names the wrong library. Standard library only: it
runs before anything is installed (``python -m annotator.displaycheck``) and never loads Qt.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

# soname -> (Debian/Ubuntu package, Fedora/RHEL package) for the libraries Qt's xcb and
# wayland platform plugins load; libxcb-cursor0 is the one a fresh desktop usually lacks.
PACKAGES: dict[str, tuple[str, str]] = {
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor"),
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms"),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil"),
    "libxcb-util.so.1": ("libxcb-util1", "xcb-util"),
    "libxcb-xkb.so.1": ("libxcb-xkb1", "libxcb"),
    "libxcb-shape.so.0": ("libxcb-shape0", "libxcb"),
    "libxcb-randr.so.0": ("libxcb-randr0", "libxcb"),
    "libxcb-xfixes.so.0": ("libxcb-xfixes0", "libxcb"),
    "libxcb-sync.so.1": ("libxcb-sync1", "libxcb"),
    "libxcb-shm.so.0": ("libxcb-shm0", "libxcb"),
    "libxcb-render.so.0": ("libxcb-render0", "libxcb"),
    "libxcb-xinput.so.0": ("libxcb-xinput0", "libxcb"),
    "libxcb.so.1": ("libxcb1", "libxcb"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb"),
    "libX11.so.6": ("libx11-6", "libX11"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon"),
    "libSM.so.6": ("libsm6", "libSM"),
    "libICE.so.6": ("libice6", "libICE"),
    "libEGL.so.1": ("libegl1", "libglvnd-egl"),
    "libGL.so.1": ("libgl1", "libglvnd-glx"),
    "libOpenGL.so.0": ("libopengl0", "libglvnd-opengl"),
    "libGLX.so.0": ("libglx0", "libglvnd-glx"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig"),
    "libfreetype.so.6": ("libfreetype6", "freetype"),
    "libglib-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libgthread-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs"),
    "libwayland-client.so.0": ("libwayland-client0", "libwayland-client"),
    "libwayland-cursor.so.0": ("libwayland-cursor0", "libwayland-cursor"),
    "libwayland-egl.so.1": ("libwayland-egl1", "libwayland-egl"),
}

NO_DISPLAY = (
    "annotator: no display: neither $DISPLAY nor $WAYLAND_DISPLAY is set.\n"
    "  Run this from a desktop session (or over ssh -X). Without a screen, the command\n"
    "  line still works, and 'annotator --project DIR gui --screenshot out.png' renders\n"
    "  the app to a PNG."
)


def platform_plugins_dir() -> Path | None:
    """Where PySide6 keeps Qt's platform plugins, found without importing PySide6."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]) / "Qt" / "plugins" / "platforms"


def run_ldd(library: Path) -> str:
    """``ldd``'s report of every library ``library`` needs, transitively ("" if it cannot)."""
    try:
        done = subprocess.run(["ldd", str(library)], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):  # no ldd (not Linux): nothing to say
        return ""
    return done.stdout


def missing_libraries(ldd_output: str) -> list[str]:
    """The sonames ``ldd`` reports as "not found", in order, each once."""
    found: list[str] = []
    for line in ldd_output.splitlines():
        name, arrow, where = line.strip().partition(" => ")
        if arrow and where.strip() == "not found" and name not in found:
            found.append(name)
    return found


def install_advice(plugin: str, missing: list[str]) -> str:
    """The message naming the missing libraries and the apt and dnf commands that install them."""
    apt: list[str] = []
    dnf: list[str] = []
    for library in missing:
        # An unknown library is named as it is: the package manager's search finds it.
        on_apt, on_dnf = PACKAGES.get(library, (library, library))
        apt += [] if on_apt in apt else [on_apt]
        dnf += [] if on_dnf in dnf else [on_dnf]
    return "\n".join([
        f"annotator: Qt cannot open a window: system libraries its {plugin} plugin needs are"
        " missing:",
        f"  {' '.join(missing)}",
        "Install them, then run this again:",
        f"  Debian/Ubuntu:  sudo apt-get install {' '.join(apt)}",
        f"  Fedora/RHEL:    sudo dnf install {' '.join(dnf)}",
    ])


def display_problem(
    environ: Mapping[str, str] | None = None,
    plugins: Path | None = None,
    ldd: Callable[[Path], str] | None = None,
) -> str | None:
    """Why Qt could not open a window here (the message to print), or None if it can."""
    env = os.environ if environ is None else environ
    if env.get("QT_QPA_PLATFORM", "").startswith("offscreen"):
        return None  # no window: screenshots and tests need no display
    if not env.get("DISPLAY") and not env.get("WAYLAND_DISPLAY"):
        return NO_DISPLAY
    # X11 (also Qt's fallback under Wayland) needs the xcb plugin; Wayland alone, wayland's.
    plugin = "libqxcb.so" if env.get("DISPLAY") else "libqwayland.so"
    folder = plugins if plugins is not None else platform_plugins_dir()
    if folder is None or not (folder / plugin).exists():
        return None  # not a PySide6 wheel layout: Qt itself will say what is wrong
    missing = missing_libraries((ldd or run_ldd)(folder / plugin))
    return install_advice(plugin, missing) if missing else None


def main() -> int:
    """``python -m annotator.displaycheck``: exit 0 when a window can open, else say why, 1."""
    problem = display_problem()
    if problem is None:
        return 0
    print(problem, file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
