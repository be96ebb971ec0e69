#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One entry of the shared-suite self-test (tests.list beside this file).
echo "1..1"
# 100 s: longer than a second VM takes to boot on a loaded 2-core host
# (about 20 s alone, under 60 s beside a check's other suites).
[ "$1" = slow ] && sleep 100
echo "ok 1 $SMC_TEST_NAME ran in this VM ($(cat /proc/sys/kernel/random/boot_id))"
