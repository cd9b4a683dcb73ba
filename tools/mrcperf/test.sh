#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Self-test of mrcperf: server and client on 127.0.0.1, checking the JSON
# summaries and the exit statuses of good runs, of runs that corrupt data
# on purpose (--corrupt-every), of sends that would block (--eagain-every),
# and of failures (timeout, refused, usage).
#
# Usage: test.sh [MRCPERF [PROTOS]]
#
# PROTOS defaults to "tcp udp", which need no kernel module: udp (a testing
# mode) runs mrcperf's datagram code, the code mrc uses; and mptcp too
# where the kernel has Multipath TCP enabled.  With mrc.ko loaded (in the
# VM), "test.sh ./mrcperf mrc" runs the same over mrc.

MRCPERF=${1:-./mrcperf}
PROTOS=${2:-tcp udp$([ "$(cat /proc/sys/net/mptcp/enabled 2>/dev/null)" = 1 ] && echo " mptcp")}

tmp=$(mktemp -d) || exit 1
spid=
cleanup()
{
	[ -n "$spid" ] && kill "$spid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail=0
tests=0
port=$((20000 + $$ % 20000))

bad()
{
	echo "FAIL: $*"
	for f in cli.out cli.err srv.out srv.err; do
		[ -s "$tmp/$f" ] && sed "s/^/  $f: /" "$tmp/$f" | head -20
	done
	fail=1
}

# listening PROTO PORT: is a socket bound to PORT (as far as /proc shows)?
listening()
{
	hex=$(printf '%04X' "$2")
	case $1 in
	tcp | mptcp)	# MPTCP's listener is a TCP one too
		grep -qs ":$hex [0-9A-F:]* 0A " /proc/net/tcp /proc/net/tcp6 ;;
	udp)	grep -qs ":$hex [0-9A-F:]* 07 " /proc/net/udp /proc/net/udp6 ;;
	*)	false ;;	# mrc: not in /proc
	esac
}

# start_server PROTO ARGS...: a server -1 -j in the background, on $port.
start_server()
{
	proto=$1
	shift
	tries=0
	while :; do
		port=$((port + 1))
		[ $port -gt 60000 ] && port=20001
		listening "$proto" $port && continue
		"$MRCPERF" server --proto "$proto" -p $port "$@" \
			>"$tmp/srv.out" 2>"$tmp/srv.err" &
		spid=$!
		if [ "$proto" = mrc ]; then
			sleep 0.5	# time to bind
			kill -0 $spid 2>/dev/null && return 0
			i=100
		else
			i=0
		fi
		while [ $i -lt 100 ]; do
			listening "$proto" $port && return 0
			kill -0 $spid 2>/dev/null || break
			sleep 0.02
			i=$((i + 1))
		done
		kill $spid 2>/dev/null
		wait $spid 2>/dev/null
		spid=
		tries=$((tries + 1))
		if [ $tries -ge 5 ]; then
			echo "FAIL: no $proto server on port $port"
			cat "$tmp/srv.err"
			exit 1
		fi
	done
}

# stop_server: wait (10 s at most) for the server; its status in $src.
stop_server()
{
	i=0
	while kill -0 $spid 2>/dev/null && [ $i -lt 500 ]; do
		sleep 0.02
		i=$((i + 1))
	done
	if kill -0 $spid 2>/dev/null; then
		echo "server did not exit" >>"$tmp/srv.err"
		kill -9 $spid
	fi
	wait $spid
	src=$?
	spid=
}

# client PROTO ARGS...: status in $crc.
client()
{
	proto=$1
	shift
	timeout 30 "$MRCPERF" client 127.0.0.1 --proto "$proto" -p $port "$@" \
		>"$tmp/cli.out" 2>"$tmp/cli.err"
	crc=$?
}

# jget JSON KEY: a number from a one-line JSON object, without a fork.
jget()
{
	case $1 in *"\"$2\":"*) ;; *) return ;; esac
	v=${1#*\"$2\":}
	echo "${v%%[,\}]*}"
}

# run NAME PROTO EXPECT_RC EXPECT_MSGS EXPECT_ERRORS CLIENT_ARGS...:
# one server -1 -j and one client -j -q; EXPECT_MSGS "+" means "> 0".
run()
{
	name=$1 proto=$2 erc=$3 emsgs=$4 eerr=$5
	shift 5
	tests=$((tests + 1))
	start_server "$proto" -1 -j
	client "$proto" -j -q "$@"
	stop_server
	desc="$proto $name ($*)"
	[ "$crc" = "$erc" ] || { bad "$desc: client exit $crc, not $erc"; return; }
	[ "$src" = "$erc" ] || { bad "$desc: server exit $src, not $erc"; return; }
	cj=$(cat "$tmp/cli.out")
	sj=$(cat "$tmp/srv.out")
	case $cj in
	"{"*"}") ;;
	*) bad "$desc: the client's output is not one JSON object"; return ;;
	esac
	for key in proto size messages bytes seconds goodput_mbps \
		   msgs_per_sec lat_us p50 p90 p99 max errors socket_msgs \
		   min; do
		case $cj in *"\"$key\":"*) continue ;; esac
		bad "$desc: no \"$key\" in the client's JSON"
		return
	done
	cm=$(jget "$cj" messages)
	ce=$(jget "$cj" errors)
	sm=$(jget "$sj" messages)
	se=$(jget "$sj" errors)
	if [ "$emsgs" = + ]; then
		[ "${cm:-0}" -gt 0 ] || { bad "$desc: no messages"; return; }
	else
		[ "$cm" = "$emsgs" ] ||
			{ bad "$desc: client messages $cm, not $emsgs"; return; }
	fi
	[ "$sm" = "$cm" ] ||
		{ bad "$desc: server messages $sm, client $cm"; return; }
	[ "$ce" = "$eerr" ] ||
		{ bad "$desc: client errors $ce, not $eerr"; return; }
	[ "$se" = "$eerr" ] ||
		{ bad "$desc: server errors $se, not $eerr"; return; }
	if [ "$eerr" = 0 ]; then
		size=$(jget "$cj" size)
		[ "$(jget "$cj" bytes)" = $((cm * size)) ] ||
			{ bad "$desc: bytes"; return; }
		[ "$(jget "$sj" bytes)" = $((cm * size)) ] ||
			{ bad "$desc: server bytes"; return; }
		[ -s "$tmp/cli.err" ] && { bad "$desc: client stderr"; return; }
		[ -s "$tmp/srv.err" ] && { bad "$desc: server stderr"; return; }
	fi
	echo "ok: $desc"
}

# expect_fail NAME RC STDERR_TEXT MRCPERF_ARGS...: mrcperf alone.
expect_fail()
{
	name=$1 erc=$2 text=$3
	shift 3
	tests=$((tests + 1))
	timeout 30 "$MRCPERF" "$@" >"$tmp/cli.out" 2>"$tmp/cli.err"
	rc=$?
	[ "$rc" = "$erc" ] || { bad "$name: exit $rc, not $erc"; return; }
	grep -qF -e "$text" "$tmp/cli.err" ||
		{ bad "$name: no \"$text\" on stderr"; return; }
	echo "ok: $name"
}

for p in $PROTOS; do
	case $p in
	udp)	mid=30000 big=60000 ;;	# a UDP datagram's limit
	*)	mid=1M big=64M ;;
	esac
	run "size 0"     $p 0 5 0 -s 0 -n 5
	run "size 1"     $p 0 5 0 -s 1 -n 5
	run "size 4097"  $p 0 7 0 -s 4097 -n 7
	run "size $mid"  $p 0 4 0 -s $mid -n 4 -c 2
	run "size $big"  $p 0 2 0 -s $big -n 2 --rcvbuf 64M --sndbuf 64M
	run "sockets"    $p 0 31 0 -s 4097 -n 31 -c 4 -P 3
	# a send that would block is tried again later, by when the other
	# sockets may have used the DATA buffer they share (mrc, udp)
	run "sockets, sends that would block" $p 0 24 0 -s 4097 -n 24 -c 2 \
		-P 3 --eagain-every 2
	run "more sockets than messages" $p 0 2 0 -s 100 -n 2 -P 4
	run "count 0"    $p 0 0 0 -n 0
	run "timed"      $p 0 + 0 -s 1k -t 0.2 -c 2 -P 2
	run "corrupt"    $p 1 9 3 -s 4097 -n 9 --corrupt-every 3
	run "corrupt 0-byte" $p 1 4 2 -s 0 -n 4 --corrupt-every 2
	run "corrupt 1-byte" $p 1 8 2 -s 1 -n 8 --corrupt-every 4
	run "corrupt sockets" $p 1 12 4 -s 1k -n 12 -P 2 -c 3 --corrupt-every 3

	# no progress: a stopped server
	tests=$((tests + 1))
	start_server $p -1 -j
	kill -STOP $spid
	client $p -s 1k -n 3 --timeout 0.3
	kill -CONT $spid
	kill $spid 2>/dev/null
	stop_server
	if [ $crc != 1 ] || ! grep -q "timed out after 0.3 s" "$tmp/cli.err"
	then
		bad "$p timeout: exit $crc"
	else
		echo "ok: $p timeout"
	fi

	# text output, and a server without -1 ended by SIGTERM
	tests=$((tests + 1))
	start_server $p
	client $p -s 10 -n 3
	grep -q "verify errors: 0" "$tmp/cli.out" &&
		grep -q "^socket 0: 3 messages, 0 errors" "$tmp/cli.out" &&
		grep -q "p50 .*p90 .*p99 .*max" "$tmp/cli.out" &&
		[ $crc = 0 ]
	ok=$?
	kill $spid 2>/dev/null
	stop_server
	if [ $ok != 0 ] || [ $src != 0 ] ||
	   ! grep -q "^server: 3 messages, 30 bytes, 0 errors" "$tmp/srv.out"
	then
		bad "$p text output, SIGTERM"
	else
		echo "ok: $p text output, SIGTERM"
	fi
done

case " $PROTOS " in *" tcp "*)
	# the server -1 fails when a client goes away in the middle
	tests=$((tests + 1))
	start_server tcp -1 -j
	"$MRCPERF" client 127.0.0.1 --proto tcp -p $port -n 100000 -q \
		>/dev/null 2>&1 &
	cpid=$!
	sleep 0.2
	kill $cpid
	wait $cpid 2>/dev/null
	stop_server
	if [ $src != 1 ] ||
	   ! grep -q "after [0-9]* of 100000 messages" "$tmp/srv.err"
	then
		bad "tcp client gone: server exit $src"
	else
		echo "ok: tcp client gone"
	fi

	port=$((port + 1))
	while listening tcp $port; do port=$((port + 1)); done
	expect_fail "tcp refused" 1 "Connection refused" \
		client 127.0.0.1 --proto tcp -p $port -n 1
	;;
esac

if ! grep -qs '^mrc ' /proc/modules; then
	expect_fail "mrc without mrc.ko" 1 \
		"socket: Protocol not supported (is mrc.ko loaded?)" \
		client 127.0.0.1 -n 1
fi
expect_fail "usage: no mode" 2 "server or client" 
expect_fail "usage: no address" 2 "no server address" client
expect_fail "usage: bad size" 2 "bad size" client x -s 1x
expect_fail "usage: -n and -t" 2 "not both" client x -n 1 -t 1
expect_fail "usage: client option" 2 "not a server option" server -s 1
expect_fail "usage: bad proto" 2 "bad protocol" client x --proto sctp

if [ $fail = 0 ]; then
	echo "mrcperf test.sh: all $tests tests passed"
else
	echo "mrcperf test.sh: FAILED"
fi
exit $fail
