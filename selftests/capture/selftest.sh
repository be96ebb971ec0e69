#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/capture/selftest.sh: the host-only self-test of the capture
# checks (capture/selftest in scripts/check; it boots no VM). Each case
# writes a small capture script that uses lib.sh, or prints TAP of its
# own, runs it as the only capture of scripts/check --capture-only
# (through SMC_CHECK_EXTRA_CAPTURES) and expects scripts/check's verdict:
#   - a good capture, with a condition of two parts, passes (the control);
#   - a check whose second condition is false, or whose alternatives are
#     all false, is a not ok and fails scripts/check;
#   - a check written as check DESC [ a ] && [ b ], which would give its
#     verdict on [ a ] alone, is refused and fails scripts/check;
#   - a capture that dies halfway after ok lines, that exits non-zero with
#     all its results ok, that prints no plan or a plan that does not
#     count its results fails scripts/check.
# Prints TAP; exits 1 if any case did not get the verdict it expects.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

n=0 failed=0
echo "TAP version 13"

# expect pass|fail NAME PATTERN: write stdin as capture NAME, run it in
# scripts/check and expect its verdict and a line of its output that
# matches the extended regex PATTERN (so that it fails for the reason
# the case is about, not for another).
expect() {
	local want=$1 name=$2 pattern=$3 dir=$work/$2 rc got
	mkdir -p "$dir/captures"
	{ echo '#!/bin/bash'; echo ". '$here/lib.sh'"; cat; } >"$dir/captures/$name.sh"
	chmod +x "$dir/captures/$name.sh"
	BUILD=$dir/build SMC_CHECK_LOG=$dir/check.log SMC_CHECK_EXTRA_CAPTURES=$dir/captures \
		"$top/scripts/check" --capture-only "capture/extra-$name" >"$dir/out" 2>&1 </dev/null
	rc=$?
	got=fail
	[ $rc = 0 ] && got=pass
	n=$((n + 1))
	if [ $got = "$want" ] && grep -qE "$pattern" "$dir/out"; then
		echo "ok $n - $name: scripts/check says $got"
	else
		failed=1
		echo "not ok $n - $name: scripts/check says $got (status $rc), expected $want with a line /$pattern/"
		sed 's/^/#   /' "$dir/out"
	fi
}

expect pass good '^1 passed, 0 failed$' <<'EOF'
a=1
check "a condition of two parts, both true" '[ $a = 1 ] && [ -n "$a" ]'
finish
EOF

expect fail and '^not ok [0-9]+ capture/extra-and: the second part is false$' <<'EOF'
a=1
check "the second part is false" '[ $a = 1 ] && [ $a = 2 ]'
finish
EOF

expect fail or '^not ok [0-9]+ capture/extra-or: no alternative holds$' <<'EOF'
check "no alternative holds" '[ 1 = 2 ] || [ 1 = 3 ]'
finish
EOF

expect fail unquoted '^not ok [0-9]+ capture/extra-unquoted: the old way: check takes one quoted condition' <<'EOF'
check "the old way" [ 1 = 1 ] && [ 1 = 2 ]
finish
EOF

expect fail dies '^not ok [0-9]+ capture/extra-dies # it printed no plan.*status 3' <<'EOF'
ok "a result before it dies"
exit 3
EOF

expect fail status '^not ok [0-9]+ capture/extra-status # it exited with status 1 and no not ok' <<'EOF'
ok "all its results are ok"
echo "1..$n"
exit 1
EOF

expect fail noplan '^not ok [0-9]+ capture/extra-noplan # it printed no plan' <<'EOF'
ok "a result, and no plan"
exit 0
EOF

expect fail fewer '^not ok [0-9]+ capture/extra-fewer # its plan is 1\.\.3 but it printed 2 results' <<'EOF'
ok "one"
ok "two"
echo "1..3"
exit 0
EOF

expect fail more '^not ok [0-9]+ capture/extra-more # its plan is 1\.\.1 but it printed 2 results' <<'EOF'
ok "one"
ok "two"
echo "1..1"
exit 0
EOF

echo "1..$n"
exit $failed
