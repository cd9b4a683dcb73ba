# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# Shared by tools/check.sh and tools/check-debug.sh: result counting and
# reading TAP.  Sourced, not run.

pass=0
fail=0
skip=0
start=$SECONDS
# "NAME: WHY" of every failure and skip, for check_summary.
fails=()
skips=()

result() {	# result ok|fail|skip NAME [WHY]
	case $1 in
	ok)	pass=$((pass + 1)); echo "PASS: $2" ;;
	skip)	skip=$((skip + 1)); skips+=("$2: $3"); echo "SKIP: $2: $3" ;;
	*)	fail=$((fail + 1)); fails+=("$2${3:+: $3}")
		echo "FAIL: $2${3:+: $3}" ;;
	esac
}

# Count the PASS:/FAIL:/SKIP: lines in LOG (another script's results) as
# this one's own.
count_results() {	# count_results LOG
	local line

	while IFS= read -r line; do
		case $line in
		"PASS: "*) pass=$((pass + 1)) ;;
		"FAIL: "*) fail=$((fail + 1)); fails+=("${line#FAIL: }") ;;
		"SKIP: "*) skip=$((skip + 1)); skips+=("${line#SKIP: }") ;;
		esac
	done <"$1"
}

stage() {
	echo
	echo "=== $* ($((SECONDS - start)) s)"
}

# The reason of a TAP "# SKIP reason" directive in LINE.
skip_reason() {	# skip_reason LINE
	local why=${1#*# SKIP}

	why=${why# }
	echo "${why:-no reason given}"
}

# A TAP stream's "ok"/"not ok" lines, counted; SKIP directives apart.
count_tap() {	# count_tap PREFIX LOG
	local line

	while IFS= read -r line; do
		case $line in
		"not ok "*)	result fail "$1: ${line#not ok }" ;;
		"ok "*"# SKIP"*) result skip "$1: ${line#ok }" \
					"$(skip_reason "$line")" ;;
		"ok "*)		result ok "$1: ${line#ok }" ;;
		esac
	done < <(grep -E '^(not )?ok [0-9]+ ' "$2")
}

# The kselftest runner's result lines in LOG (not the tests' inner ones),
# and every inner check a test skipped: a skip is never a silent pass.  A
# skipped test's reason is the "SKIP: TEST: why" line it printed
# (selftests/lib.sh mrc_skip_test), a failed test's its first failed check.
count_selftests() {	# count_selftests PREFIX LOG
	local line test='' name
	local -A why=() first=()

	if ! grep -qE '^(not )?ok [0-9]+ selftests: ' "$2"; then
		result fail "$1: no test ran"
		return
	fi
	while IFS= read -r line; do
		case $line in
		"# selftests: "*)
			test=${line##*: } ;;
		"# SKIP: $test: "*)
			why[$test]=${line#"# SKIP: $test: "} ;;
		"# not ok "[0-9]*)
			[ -n "${first[$test]:-}" ] ||
				first[$test]=${line#"# not ok "} ;;
		"# ok "[0-9]*" # SKIP"*)
			name=${line#"# ok "}
			result skip "$1 check: $test: ${name%% # SKIP*}" \
				"$(skip_reason "$line")" ;;
		"not ok "[0-9]*" selftests: "*)
			name=${line%% # *}
			result fail "$1: ${line#not ok }" \
				"${first[${name##*: }]:+first failed check: ${first[${name##*: }]}}" ;;
		"ok "[0-9]*" selftests: "*" # SKIP"*)
			name=${line%% # SKIP*}
			result skip "$1: ${name#ok }" \
				"${why[${name##*: }]:-no reason given}" ;;
		"ok "[0-9]*" selftests: "*)
			result ok "$1: ${line#ok }" ;;
		esac
	done <"$2"
}

# The closing summary: every failure and every skip with its reason, then
# the totals, last, as "N passed, N failed, N skipped".
check_summary() {
	local r

	if [ "${#fails[@]}" -gt 0 ]; then
		echo
		echo "Failed:"
		for r in "${fails[@]}"; do
			echo "  $r"
		done
	fi
	if [ "${#skips[@]}" -gt 0 ]; then
		echo
		echo "Skipped (and why):"
		for r in "${skips[@]}"; do
			echo "  $r"
		done
	fi
	echo "$pass passed, $fail failed, $skip skipped"
}
