#!/bin/sh
# One deliberately broken selftest per mode; see tests.list beside this file.
case "$1" in
fail) echo "1..1"; echo "not ok 1 a case that fails" ;;
exit) echo "1..1"; echo "ok 1 a case that passes"; exit 1 ;;
crash) echo "1..1"; kill -SEGV $$ ;;
hang) echo "1..1"; sleep 1000 ;;
silent) exit 0 ;;
esac
