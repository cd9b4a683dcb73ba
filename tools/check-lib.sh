# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# Shared by tools/check.sh and tools/check-debug.sh: result counting and
# reading TAP.  Sourced, not run.

pass=0
fail=0
skip=0
start=$SECONDS

result() {	# result ok|fail|skip NAME [WHY]
	case $1 in
	ok)	pass=$((pass + 1)); echo "PASS: $2" ;;
	skip)	skip=$((skip + 1)); echo "SKIP: $2: $3" ;;
	*)	fail=$((fail + 1)); echo "FAIL: $2${3:+: $3}" ;;
	esac
}

stage() {
	echo
	echo "=== $* ($((SECONDS - start)) s)"
}

# A TAP stream's "ok"/"not ok" lines, counted; SKIP directives apart.
count_tap() {	# count_tap PREFIX LOG
	local line

	while IFS= read -r line; do
		case $line in
		"not ok "*)	result fail "$1: ${line#not ok }" ;;
		"ok "*"# SKIP"*) result skip "$1: ${line#ok }" "skipped" ;;
		"ok "*)		result ok "$1: ${line#ok }" ;;
		esac
	done < <(grep -E '^(not )?ok [0-9]+ ' "$2")
}

# The kselftest runner's result lines in LOG (not the tests' inner ones),
# and every inner check a test skipped: a skip is never a silent pass.
count_selftests() {	# count_selftests PREFIX LOG
	local line

	if ! grep -qE '^(not )?ok [0-9]+ selftests: ' "$2"; then
		result fail "$1: no test ran"
		return
	fi
	count_tap "$1" <(grep -E '^(not )?ok [0-9]+ selftests: ' "$2")
	while IFS= read -r line; do
		result skip "$1 check: ${line#*ok }" "see the log"
	done < <(grep -E '^# ok [0-9]+ .*# SKIP' "$2")
}

check_summary() {
	echo "$pass passed, $fail failed, $skip skipped"
}
