#!/bin/bash
# Build, once, the debug kernel (KASAN, lockdep, kmemleak, UBSAN...) that
# mrc's tests boot with tools/vm/run-vm, and cache it outside the tree.
#
#   tools/vm/debug-kernel.sh              build if needed, print a summary
#   tools/vm/debug-kernel.sh --print-dir  build if needed, print only the dir
#
# The kernel is Debian's linux-source-6.1 configured as tinyconfig plus
# tools/vm/debug.config, everything built in.  It lands in
#   ${MRC_CACHE:-/var/cache/mrc}/debug-kernel/<key>/
#     build/arch/x86/boot/bzImage   the kernel          (run-vm --kernel)
#     build/                        KDIR for out-of-tree modules:
#                                   make -C .../build M=$PWD modules
#     modules/                      INSTALL_MOD_PATH root (run-vm --modules-dir);
#                                   no .ko files, but modules.builtin lets
#                                   "modprobe veth" etc. succeed
#     build.log                     full output of the last build attempt
#     ok                            written last: the build is complete
# <key> hashes everything the result depends on, so changing a setting in
# debug.config (or a new linux-source or compiler) gives a new directory
# rather than a stale kernel.  A run that finds no "ok" (first run, or an interrupted one)
# (re)builds; make's incremental build makes a re-run resume where it died.
set -Eeuo pipefail

trap 'echo "debug-kernel: internal error at line $LINENO" >&2' ERR

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
readonly HERE
readonly FRAGMENT=$HERE/debug.config
readonly SRC_PKG=linux-source-6.1
readonly SRC_DIR=/usr/src/$SRC_PKG
readonly SRC_TAR=/usr/src/$SRC_PKG.tar.xz
# Bump when the recipe below changes in a way that changes the kernel.
readonly RECIPE_REV=1
# What building a kernel needs beyond what is always there (dwarves:
# pahole, needed as soon as someone turns on BTF).
readonly BUILD_DEPS=(make gcc libc6-dev bc flex bison libelf-dev libssl-dev
	dwarves rsync xz-utils kmod)

usage() {
	sed -n '2,/^set -/{/^set -/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
}

say() { echo "debug-kernel: $*" >&2; }
die() {
	say "$*"
	exit 1
}

bad_usage() {
	echo "usage: tools/vm/debug-kernel.sh [--print-dir]  (--help for more)" >&2
	exit 2
}
print_dir=
case ${1:-} in
'') ;;
--print-dir) print_dir=1 ;;
-h | --help) usage; exit 0 ;;
*) bad_usage ;;
esac
[[ $# -le 1 ]] || bad_usage
[[ -r $FRAGMENT ]] || die "missing $FRAGMENT"

is_installed() {
	[[ $(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null) == installed ]]
}

# Install whichever of the given packages are missing.  An out-of-date
# package index is the usual reason for a failure: update and retry once.
apt_install() {
	local p missing=()
	for p in "$@"; do
		is_installed "$p" || missing+=("$p")
	done
	[[ ${#missing[@]} -gt 0 ]] || return 0
	[[ $(id -u) -eq 0 ]] || die "missing packages (${missing[*]}); run as root or install them"
	say "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y --no-install-recommends "${missing[@]}" >&2 || {
		apt-get update >&2
		apt-get install -y --no-install-recommends "${missing[@]}" >&2
	}
}

# The unpacked source must exist even when the kernel is cached: the build
# tree's "source" link points into it, and module builds read its headers.
ensure_source() {
	[[ -f $SRC_DIR/Makefile ]] && return 0
	[[ -f $SRC_TAR ]] || apt_install "$SRC_PKG"
	[[ -f $SRC_TAR ]] || die "$SRC_TAR not found even after installing $SRC_PKG"
	[[ -w ${SRC_DIR%/*} ]] || die "$SRC_DIR is missing and ${SRC_DIR%/*} is not writable (run as root)"
	say "unpacking $SRC_TAR"
	# Unpack beside the target and rename, so that an interrupted unpack
	# never leaves a half tree that the check above would take as complete.
	local tmp
	tmp=$(mktemp -d "$SRC_DIR.unpack.XXXXXX")
	tar -C "$tmp" -xf "$SRC_TAR"
	[[ -f $tmp/$SRC_PKG/Makefile ]] || die "$SRC_TAR does not contain $SRC_PKG/"
	mv "$tmp/$SRC_PKG" "$SRC_DIR"
	rmdir "$tmp"
}

# "6.1.192" from the top Makefile.
source_version() {
	awk -F ' *= *' '
		$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 }
		$1 == "SUBLEVEL" { s = $2 } $1 == "EXTRAVERSION" { e = $2 }
		END { print v "." p "." s e }' "$SRC_DIR/Makefile"
}

# Before the key, which includes the compiler version.
apt_install "${BUILD_DEPS[@]}"
ensure_source
src_ver=$(source_version)
pkg_ver=$(dpkg-query -W -f='${Version}' "$SRC_PKG" 2>/dev/null || :)
[[ -n $pkg_ver ]] || pkg_ver=none # unpacked by hand, package since removed
# The tarball is upgraded by apt but the unpacked tree is not: say so, as
# the kernel is built from the tree.
[[ $pkg_ver == none || ${pkg_ver%-*} == "$src_ver" ]] ||
	say "warning: $SRC_DIR is $src_ver but $SRC_PKG is $pkg_ver; re-unpack $SRC_TAR to update it"

key=$({
	echo "recipe $RECIPE_REV"
	echo "source $src_ver package $pkg_ver"
	echo "gcc $(gcc -dumpfullversion 2>/dev/null || echo none)"
	# Its settings only: a comment edit must not cost a rebuild.
	grep -E '^(CONFIG_|# CONFIG_.* is not set$)' "$FRAGMENT"
} | sha256sum | cut -c 1-16)
readonly dir=${MRC_CACHE:-/var/cache/mrc}/debug-kernel/$key
readonly build=$dir/build log=$dir/build.log
readonly bzimage=$build/arch/x86/boot/bzImage

report() {
	if [[ -n $print_dir ]]; then
		echo "$dir"
		return
	fi
	cat <<EOF
debug kernel $(cat "$dir/ok") in $dir
  kernel:   $bzimage
  KDIR:     $build   (make -C $build M=\$PWD modules)
  run-vm:   tools/vm/run-vm --kernel $bzimage --modules-dir $dir/modules -- CMD
EOF
}

if [[ -f $dir/ok ]]; then
	report
	exit 0
fi

mkdir -p "$dir" 2>/dev/null ||
	die "cannot create $dir (set MRC_CACHE to a writable directory)"
# One build per key at a time; a second caller waits, then finds "ok".
exec 9>"$dir/lock"
if ! flock -n 9; then
	say "another build of $dir is running; waiting for it"
	flock 9
fi
if [[ -f $dir/ok ]]; then
	report
	exit 0
fi

# Every value the fragment sets must be in the final .config: Kconfig
# silently drops options whose dependencies are off.  "is not set" lines
# hold if the symbol is unset or invisible.
verify_config() {
	local line sym bad=()
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF -- "$line" "$build/.config" ||
				bad+=("$line (got: $(grep -E "^(# )?${line%%=*}[= ]" "$build/.config" || echo absent))")
			;;
		'# CONFIG_'*' is not set')
			sym=${line#\# }
			sym=${sym%% *}
			! grep -qE "^$sym=" "$build/.config" ||
				bad+=("$line (got: $(grep -E "^$sym=" "$build/.config"))")
			;;
		esac
	done <"$FRAGMENT"
	[[ ${#bad[@]} -eq 0 ]] && return 0
	say "these debug.config settings did not survive olddefconfig (a dependency is off?):"
	printf '  %s\n' "${bad[@]}" >&2
	return 1
}

start=$SECONDS
elapsed() { printf '%dm%02ds' $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60)); }

# Run a make step with its output in the log; show the log's tail if it fails.
step() {
	if ! "$@" >>"$log" 2>&1; then
		say "failed after $(elapsed): $*"
		tail -n 40 "$log" | sed 's/^/  | /' >&2
		die "full log: $log"
	fi
}

rm -f "$log"
echo "# $(date -u +%FT%TZ) building $SRC_DIR ($src_ver, $pkg_ver) with $FRAGMENT" >"$log"
say "building the debug kernel in $dir (about 15 minutes on 2 CPUs; log: $log)"

# Make's output directory keeps all state, so rerunning these steps after
# an interruption rebuilds only what is missing.  tinyconfig rewrites
# .config each time, but olddefconfig produces the same final file, and
# Kbuild tracks changes per option, so unchanged objects are not rebuilt.
cd "$SRC_DIR"
mkdir -p "$build"
step make O="$build" tinyconfig
step scripts/kconfig/merge_config.sh -m -O "$build" "$build/.config" "$FRAGMENT"
step make O="$build" olddefconfig
verify_config || die "fix $FRAGMENT (see make O=$build menuconfig for dependencies)"

# A line a minute, so a long quiet build is visibly alive.  The ticker
# kills its own sleep when stopped: a leftover sleep holding our stdout
# would keep a caller's $(debug-kernel.sh --print-dir) waiting.
(
	trap 'kill "$nap" 2>/dev/null || :; exit 0' TERM
	while :; do
		sleep 60 &
		nap=$!
		wait "$nap"
		say "  $(elapsed): $(tail -n 1 "$log" | cut -c 1-70)"
	done
) </dev/null >&2 &
ticker=$!
trap 'kill "$ticker" 2>/dev/null || :' EXIT

# The default target builds bzImage, modules and everything an external
# module build (M=) needs from KDIR: Module.symvers, scripts, objtool.
step make O="$build" -j"$(nproc)"
kill "$ticker" 2>/dev/null || :

# No =m modules, but modules.builtin and modules.dep let modprobe (in the
# VM) treat the built-in drivers as loaded.
rm -rf "$dir/modules"
step make O="$build" INSTALL_MOD_PATH="$dir/modules" modules_install

[[ -s $bzimage ]] || die "no $bzimage after the build; see $log"
release=$(make -s O="$build" kernelrelease)
# CPU time of everything run above (bash's "times", children line); it is
# written to a file because a $(...) subshell would not see our children.
times >"$dir/times"
cpu=$(awk 'END {
	n = split($0, t, " ")
	for (i = 1; i <= n; i++) { split(t[i], ms, "m"); s += ms[1] * 60 + ms[2] }
	printf "%dm%02ds", s / 60, s % 60 }' "$dir/times")
rm -f "$dir/times"

echo "$release" >"$dir/ok"
say "built $release in $(elapsed) (CPU: $cpu)"
report
