#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# One entry of the shared-suite self-test (tests.list beside this file).
echo "1..1"
# slow holds its VM until the other VM has claimed the three quick entries
# (vm/run's "claimed" answer), so that they cannot all end up in this one;
# bounded, for a second VM that never boots (it takes about 10 s alone).
if [ "$1" = slow ]; then
	waited=0
	for e in quick1 quick2 quick3; do
		until smc-vm-host claimed "vm1/shared/$e" >/dev/null; do
			if [ $waited -ge 240 ]; then
				echo "not ok 1 $SMC_TEST_NAME: the other VM did not claim $e within 240 s"
				exit 1
			fi
			sleep 1
			waited=$((waited + 1))
		done
	done
fi
echo "ok 1 $SMC_TEST_NAME ran in this VM ($(cat /proc/sys/kernel/random/boot_id))"
