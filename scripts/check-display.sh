#!/usr/bin/env bash
# Can Qt open a window here? Checks, before the app starts, that there is a display and
# that the system libraries of Qt's platform plugin are installed; otherwise says what to
# install (apt and dnf) instead of letting Qt abort. Usage: check-display.sh PYTHON
# (the Python whose PySide6 will run the app). Exit 0 when the app can start, 1 if not.
set -euo pipefail
PY=${1:-python3}

if [ "${QT_QPA_PLATFORM:-}" = offscreen ]; then
  exit 0  # no window: screenshots and tests need no display
fi
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  echo "annotator: no display: neither \$DISPLAY nor \$WAYLAND_DISPLAY is set." >&2
  echo "  Run this from a desktop session (or over ssh -X). Without a screen, the command" >&2
  echo "  line still works, and 'annotator --project DIR gui --screenshot out.png' renders" >&2
  echo "  the app to a PNG." >&2
  exit 1
fi

# X11 (also Qt's fallback under Wayland) needs the xcb plugin; Wayland alone, wayland's.
plugin=libqxcb.so
if [ -z "${DISPLAY:-}" ]; then plugin=libqwayland.so; fi
plugins=$("$PY" -c 'import pathlib, PySide6; print(pathlib.Path(PySide6.__file__).parent / "Qt" / "plugins" / "platforms")')
# ldd lists every library the plugin needs, transitively; "not found" ones are missing.
missing=$(ldd "$plugins/$plugin" 2>/dev/null | awk '/=> not found/ {print $1}' | sort -u)
[ -z "$missing" ] && exit 0

# soname -> Debian/Ubuntu package, Fedora/RHEL package
declare -A APT=(
  [libxcb-cursor.so.0]=libxcb-cursor0 [libxcb-icccm.so.4]=libxcb-icccm4
  [libxcb-image.so.0]=libxcb-image0 [libxcb-keysyms.so.1]=libxcb-keysyms1
  [libxcb-render-util.so.0]=libxcb-render-util0 [libxcb-xkb.so.1]=libxcb-xkb1
  [libxcb-shape.so.0]=libxcb-shape0 [libxcb-randr.so.0]=libxcb-randr0
  [libxcb-xfixes.so.0]=libxcb-xfixes0 [libxcb-sync.so.1]=libxcb-sync1
  [libxcb-shm.so.0]=libxcb-shm0 [libxcb-render.so.0]=libxcb-render0
  [libxcb-xinput.so.0]=libxcb-xinput0 [libxcb-util.so.1]=libxcb-util1
  [libxcb.so.1]=libxcb1 [libX11-xcb.so.1]=libx11-xcb1 [libX11.so.6]=libx11-6
  [libxkbcommon-x11.so.0]=libxkbcommon-x11-0 [libxkbcommon.so.0]=libxkbcommon0
  [libSM.so.6]=libsm6 [libICE.so.6]=libice6 [libEGL.so.1]=libegl1 [libGL.so.1]=libgl1
  [libOpenGL.so.0]=libopengl0 [libGLX.so.0]=libglx0 [libfontconfig.so.1]=libfontconfig1
  [libfreetype.so.6]=libfreetype6 [libglib-2.0.so.0]=libglib2.0-0
  [libgthread-2.0.so.0]=libglib2.0-0 [libdbus-1.so.3]=libdbus-1-3
  [libwayland-client.so.0]=libwayland-client0 [libwayland-cursor.so.0]=libwayland-cursor0
  [libwayland-egl.so.1]=libwayland-egl1
)
declare -A DNF=(
  [libxcb-cursor.so.0]=xcb-util-cursor [libxcb-icccm.so.4]=xcb-util-wm
  [libxcb-image.so.0]=xcb-util-image [libxcb-keysyms.so.1]=xcb-util-keysyms
  [libxcb-render-util.so.0]=xcb-util-renderutil [libxcb-util.so.1]=xcb-util
  [libxcb-xkb.so.1]=libxcb [libxcb-shape.so.0]=libxcb [libxcb-randr.so.0]=libxcb
  [libxcb-xfixes.so.0]=libxcb [libxcb-sync.so.1]=libxcb [libxcb-shm.so.0]=libxcb
  [libxcb-render.so.0]=libxcb [libxcb-xinput.so.0]=libxcb [libxcb.so.1]=libxcb
  [libX11-xcb.so.1]=libX11-xcb [libX11.so.6]=libX11
  [libxkbcommon-x11.so.0]=libxkbcommon-x11 [libxkbcommon.so.0]=libxkbcommon
  [libSM.so.6]=libSM [libICE.so.6]=libICE [libEGL.so.1]=libglvnd-egl
  [libGL.so.1]=libglvnd-glx [libOpenGL.so.0]=libglvnd-opengl [libGLX.so.0]=libglvnd-glx
  [libfontconfig.so.1]=fontconfig [libfreetype.so.6]=freetype
  [libglib-2.0.so.0]=glib2 [libgthread-2.0.so.0]=glib2 [libdbus-1.so.3]=dbus-libs
  [libwayland-client.so.0]=libwayland-client [libwayland-cursor.so.0]=libwayland-cursor
  [libwayland-egl.so.1]=libwayland-egl
)
apt="" dnf=""
for lib in $missing; do
  a=${APT[$lib]:-} d=${DNF[$lib]:-}
  [ -n "$a" ] || a=$lib  # unknown library: name it, the package manager's search finds it
  [ -n "$d" ] || d=$lib
  case " $apt " in *" $a "*) ;; *) apt="$apt $a" ;; esac
  case " $dnf " in *" $d "*) ;; *) dnf="$dnf $d" ;; esac
done
echo "annotator: Qt cannot open a window: system libraries its $plugin plugin needs are missing:" >&2
echo "  $(echo $missing)" >&2
echo "Install them, then run this again:" >&2
echo "  Debian/Ubuntu:  sudo apt-get install$apt" >&2
echo "  Fedora/RHEL:    sudo dnf install$dnf" >&2
exit 1
