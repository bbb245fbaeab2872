#!/bin/sh
# Debian packages the test suite needs, installed when missing (as root, or with sudo):
#   gnome-cards-data, kdegames-card-data-kf5, librsvg2-bin: real card decks the camera
#   tests render (tools/render_deck_corpus.py).
#   fonts-dejavu-core, fonts-liberation, fonts-freefont-ttf: fonts the tests of the
#   font-drawn training decks draw with (tools/render_font_decks.py).
#   chromium, chromium-driver: the headless browser the pit display's tests drive
#   through Selenium (tests/tablectl/test_display_browser.py).
#   mosquitto: the MQTT broker the floor's tests start on a free loopback port and kill
#   (tests/tablectl/mqtt/, benchmarks/floor_mqtt.py).
#   openssl: makes the certificate of the TLS broker in tests/tablectl/mqtt/
#   test_floor_security_docs.py.
set -eu
PACKAGES="gnome-cards-data kdegames-card-data-kf5 librsvg2-bin fonts-dejavu-core fonts-liberation fonts-freefont-ttf chromium chromium-driver mosquitto openssl"
missing=""
for package in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $package"
    fi
done
[ -z "$missing" ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "installing Debian packages:$missing"
$SUDO apt-get update -q >/dev/null
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q $missing >/dev/null
