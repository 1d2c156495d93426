#!/usr/bin/env bash
# Set up a fresh machine: Debian packages the backends drive (when run as root
# and something is missing), then .venv with troupe-bench, every extra and the test tools. Idempotent.
#   --osworld-apps  also the applications of OSWorld's tasks with no VM (VLC, GIMP, LibreOffice, Thunderbird, sar):
#                   the tests and local OSWorld runs need them, the main job does not
set -euo pipefail
cd "$(dirname "$0")/.."

osworld_apps=false
for argument in "$@"; do
    case "$argument" in
        --osworld-apps) osworld_apps=true ;;
        *) echo "setup: unknown option $argument (known: --osworld-apps)" >&2; exit 2 ;;
    esac
done

# Debian packages: the browser for the browser backend (its headless shell) and the tests' viewer checks.
APT_PACKAGES=(chromium chromium-headless-shell)
# The X11 desktop backend and its suite: display, input, window manager, AT-SPI, applications.
APT_PACKAGES+=(xvfb xdotool openbox dbus at-spi2-core mousepad galculator xterm git)
# OSWorld's tasks with no VM: the tools their commands call (jq edits Chrome's Preferences, xsel reads the clipboard).
APT_PACKAGES+=(jq xsel)
# OSWorld's applications with no VM (about 170 s on a fresh machine): VLC, GIMP, LibreOffice, Thunderbird, sar.
if $osworld_apps; then
    APT_PACKAGES+=(vlc gimp libreoffice-impress sysstat)
    APT_PACKAGES+=(libreoffice-gtk3)  # LibreOffice's tree over AT-SPI, as OSWorld reads it (2 MB, ~2 s)
    APT_PACKAGES+=(python3-pyatspi)  # the tests run OSWorld's own tree code over pyatspi to compare (~1 MB)
    APT_PACKAGES+=(libreoffice-calc libreoffice-writer)  # the cache-backed Calc and Writer tasks (~20 s)
    APT_PACKAGES+=(thunderbird)  # the Thunderbird tasks (~18 s)
fi

missing=()
for package in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    else
        echo "setup: missing Debian packages (install them as root): ${missing[*]}" >&2
    fi
fi

python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[test]'
