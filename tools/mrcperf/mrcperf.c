// SPDX-License-Identifier: GPL-2.0
/*
 * mrcperf: benchmark and end-to-end verification of mrc message sockets.
 *
 *   mrcperf server [-p PORT] [-4|-6] [--proto mrc|tcp|mptcp] [-1] [-j] ...
 *   mrcperf client ADDR [-p PORT] [--proto mrc|tcp|mptcp] [-s SIZE] ...
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "mrcperf.h"

enum {
	OPT_PROTO = 256,
	OPT_RCVBUF,
	OPT_SNDBUF,
	OPT_UDP_SPORT,
	OPT_TIMEOUT,
	OPT_CORRUPT_EVERY,
	OPT_EAGAIN_EVERY,
	OPT_BIND,
};

/* The options each role takes. */
#define SERVER_SHORT	"p46 1j"
#define CLIENT_SHORT	"p snt cPj q"

static const char usage_text[] =
"Usage: mrcperf server [-p PORT] [-4|-6] [--proto mrc|tcp|mptcp] [-1] [-j]\n"
"                      [--rcvbuf BYTES] [--sndbuf BYTES] [--bind ADDR]\n"
"       mrcperf client ADDR [-p PORT] [--proto mrc|tcp|mptcp] [-s SIZE]\n"
"                      [-n COUNT | -t SECONDS] [-c INFLIGHT] [-P SOCKETS]\n"
"                      [-j] [--rcvbuf BYTES] [--sndbuf BYTES]\n"
"                      [--udp-sport PORT] [--timeout SECONDS] [-q]\n"
"\n"
"  -p PORT            server port (default 5001)\n"
"  -4, -6             server: IPv4 (default) or IPv6\n"
"  --bind ADDR        server: bind to ADDR (its family; fe80::1%%IF for a\n"
"                     link-local one) instead of every address\n"
"  --proto P          transport: mrc (default), tcp, or mptcp (TCP's\n"
"                     protocol over Multipath TCP's sockets)\n"
"  -1                 server: exit after one client run; status 0 only if\n"
"                     every message verified\n"
"  -j                 JSON output\n"
"  -s SIZE            message size, suffixes k, m, g (default 1M)\n"
"  -n COUNT           messages in all sockets together (default 100)\n"
"  -t SECONDS         send for SECONDS instead of a count\n"
"  -c INFLIGHT        messages outstanding per socket (default 1)\n"
"  -P SOCKETS         client sockets (default 1)\n"
"  --rcvbuf, --sndbuf SO_RCVBUF / SO_SNDBUF (the FORCE variants if root)\n"
"  --udp-sport PORT   mrc: MRC_SO_UDP_SPORT of the client sockets\n"
"  --timeout SECONDS  give up after SECONDS without progress (default 30)\n"
"  -q                 client: only the summary\n"
"\n"
"Exit status: 0 every message verified, 1 a failure, 2 usage.\n";

static int usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry \"%s --help\" for more information.\n",
		progname);
	return MRCPERF_EXIT_USAGE;
}

/* "1M", "4097", "64m", "2g": k/m/g are powers of 1024. */
static bool parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return false;
	switch (*end) {
	case 'k': case 'K':
		shift = 10;
		end++;
		break;
	case 'm': case 'M':
		shift = 20;
		end++;
		break;
	case 'g': case 'G':
		shift = 30;
		end++;
		break;
	}
	if (*end || (shift && v > (~0ULL >> shift)))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

static bool parse_uint(const char *s, uint64_t min, uint64_t max,
		       uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

static bool parse_secs(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > 1e7)
		return false;
	*out = v;
	return true;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "proto",		required_argument, NULL, OPT_PROTO },
		{ "rcvbuf",		required_argument, NULL, OPT_RCVBUF },
		{ "sndbuf",		required_argument, NULL, OPT_SNDBUF },
		{ "udp-sport",		required_argument, NULL, OPT_UDP_SPORT },
		{ "timeout",		required_argument, NULL, OPT_TIMEOUT },
		{ "bind",		required_argument, NULL, OPT_BIND },
		/* testing: corrupt every Nth message of each socket */
		{ "corrupt-every",	required_argument, NULL,
						OPT_CORRUPT_EVERY },
		/* testing: every Nth message's first send would block */
		{ "eagain-every",	required_argument, NULL,
						OPT_EAGAIN_EVERY },
		{ "help",		no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = {
		.proto = PROTO_MRC,
		.family = AF_INET,
		.port = MRCPERF_DEFAULT_PORT,
		.size = 1 << 20,
		.count = 100,
		.inflight = 1,
		.sockets = 1,
		.udp_sport = -1,
		.timeout = 30,
	};
	bool server, have_n = false, have_4 = false, have_6 = false;
	const char *role_short;
	uint64_t v;
	int opt;

	if (argc >= 2 && (!strcmp(argv[1], "--help") ||
			  !strcmp(argv[1], "-h"))) {
		fputs(usage_text, stdout);
		return MRCPERF_EXIT_OK;
	}
	if (argc < 2)
		return usage_error("server or client?");
	if (!strcmp(argv[1], "server"))
		server = true;
	else if (!strcmp(argv[1], "client"))
		server = false;
	else
		return usage_error("unknown mode \"%s\": server or client",
				   argv[1]);
	role_short = server ? SERVER_SHORT : CLIENT_SHORT;

	argc--;
	argv++;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":p:461js:n:t:c:P:qh", longopts,
				  NULL)) != -1) {
		if (opt < 256 && opt != 'h' && opt != '?' && opt != ':' &&
		    !strchr(role_short, opt))
			return usage_error("-%c is not a %s option", opt,
					   server ? "server" : "client");
		switch (opt) {
		case 'p':
			if (!parse_uint(optarg, 1, 65535, &v))
				return usage_error("bad port \"%s\"", optarg);
			o.port = v;
			break;
		case '4':
			have_4 = true;
			o.family = AF_INET;
			break;
		case '6':
			have_6 = true;
			o.family = AF_INET6;
			break;
		case '1':
			o.once = true;
			break;
		case 'j':
			o.json = true;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 's':
			if (!parse_size(optarg, &o.size))
				return usage_error("bad size \"%s\"", optarg);
			break;
		case 'n':
			if (!parse_uint(optarg, 0, ~0ULL >> 1, &o.count))
				return usage_error("bad count \"%s\"", optarg);
			have_n = true;
			break;
		case 't':
			if (!parse_secs(optarg, &o.seconds))
				return usage_error("bad time \"%s\"", optarg);
			break;
		case 'c':
			if (!parse_uint(optarg, 1, 1 << 20, &v))
				return usage_error("bad in-flight limit \"%s\"",
						   optarg);
			o.inflight = v;
			break;
		case 'P':
			if (!parse_uint(optarg, 1, 65536, &v))
				return usage_error("bad socket count \"%s\"",
						   optarg);
			o.sockets = v;
			break;
		case OPT_PROTO:
			o.mptcp = !strcmp(optarg, "mptcp");
			if (!strcmp(optarg, "mrc"))
				o.proto = PROTO_MRC;
			else if (!strcmp(optarg, "tcp") || o.mptcp)
				o.proto = PROTO_TCP;
			else if (!strcmp(optarg, "udp"))	/* testing */
				o.proto = PROTO_UDP;
			else
				return usage_error("bad protocol \"%s\": mrc, tcp or mptcp",
						   optarg);
			break;
		case OPT_RCVBUF:
		case OPT_SNDBUF:
			if (!parse_size(optarg, &v) || !v || v > 0x7fffffff)
				return usage_error("bad buffer size \"%s\"",
						   optarg);
			if (opt == OPT_RCVBUF)
				o.rcvbuf = v;
			else
				o.sndbuf = v;
			break;
		case OPT_UDP_SPORT:
			if (server)
				return usage_error("--udp-sport is a client option");
			if (!parse_uint(optarg, 0, 65535, &v))
				return usage_error("bad UDP source port \"%s\"",
						   optarg);
			o.udp_sport = v;
			break;
		case OPT_BIND:
			if (!server)
				return usage_error("--bind is a server option");
			o.bind_addr = optarg;
			break;
		case OPT_TIMEOUT:
			if (server)
				return usage_error("--timeout is a client option");
			if (!parse_secs(optarg, &o.timeout))
				return usage_error("bad timeout \"%s\"", optarg);
			break;
		case OPT_CORRUPT_EVERY:
			if (server)
				return usage_error("--corrupt-every is a client option");
			if (!parse_uint(optarg, 1, ~0ULL >> 1,
					&o.corrupt_every))
				return usage_error("bad --corrupt-every \"%s\"",
						   optarg);
			break;
		case OPT_EAGAIN_EVERY:
			if (server)
				return usage_error("--eagain-every is a client option");
			if (!parse_uint(optarg, 1, ~0ULL >> 1,
					&o.eagain_every))
				return usage_error("bad --eagain-every \"%s\"",
						   optarg);
			break;
		case 'h':
			fputs(usage_text, stdout);
			return MRCPERF_EXIT_OK;
		case ':':
			if (optopt >= 256 || !optopt)
				return usage_error("%s needs an argument",
						   argv[optind - 1]);
			return usage_error("-%c needs an argument", optopt);
		default:
			if (optopt && optopt < 256)
				return usage_error("unknown option -%c", optopt);
			return usage_error("unknown option \"%s\"",
					   argv[optind - 1]);
		}
	}

	if (server) {
		if (optind != argc)
			return usage_error("unexpected argument \"%s\"",
					   argv[optind]);
		if (have_4 && have_6)
			return usage_error("-4 or -6, not both");
		return run_server(&o);
	}
	if (optind == argc)
		return usage_error("client: no server address");
	if (optind + 1 != argc)
		return usage_error("unexpected argument \"%s\"",
				   argv[optind + 1]);
	o.addr = argv[optind];
	if (have_n && o.seconds > 0)
		return usage_error("-n or -t, not both");
	if (o.udp_sport >= 0 && o.proto != PROTO_MRC)
		return usage_error("--udp-sport needs --proto mrc");
	return run_client(&o);
}
