// SPDX-License-Identifier: GPL-2.0
/*
 * mrc(8): configure mrc, the multipath transport over UDP port 4791,
 * through its generic netlink family.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <linux/mrc.h>

#include "cli.h"
#include "params.h"

#ifndef MRC_CLI_VERSION
#define MRC_CLI_VERSION	"1.0"
#endif

/*
 * iproute2's rule: a command may be abbreviated to any prefix, the first
 * command in the order they are tried winning.
 */
bool mrc_matches(const char *arg, const char *cmd)
{
	size_t len = strlen(arg);

	return len && len <= strlen(cmd) && !strncmp(arg, cmd, len);
}

/* Print "mrc: <message>" and a hint; return MRC_EXIT_USAGE. */
int mrc_usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("mrc: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry \"mrc help\" for more information.\n", stderr);
	return MRC_EXIT_USAGE;
}

/* "0..8", "1..1000000 us", "none|default": what a key takes. */
static void mrc_help_range(const struct mrc_config_param *p, char *buf,
			   size_t size)
{
	const char *unit = mrc_param_unit(p);
	const char *lo = mrc_param_value_name(p, p->min);
	const char *hi = mrc_param_value_name(p, p->max);

	if (lo && hi)
		snprintf(buf, size, "%s|%s", lo, hi);
	else
		snprintf(buf, size, "%u..%u%s%s", p->min, p->max,
			 *unit ? " " : "", unit);
}

static void mrc_help_keys(void)
{
	const struct mrc_config_param *p;
	const char *def;
	char range[32];
	size_t i;

	printf("\n  %-23s %-22s %-19s %s\n", "KEY", "SPEC NAME", "VALUES",
	       "DEFAULT");
	for (i = 0; i < MRC_NR_CONFIG_PARAMS; i++) {
		p = &mrc_config_params[i];
		mrc_help_range(p, range, sizeof(range));
		def = mrc_param_value_name(p, p->def);
		if (def)
			printf("  %-23s %-22s %-19s %s\n", p->key, p->spec,
			       range, def);
		else
			printf("  %-23s %-22s %-19s %u\n", p->key, p->spec,
			       range, p->def);
	}
}

void mrc_help(void)
{
	size_t i;

	fputs("Usage: mrc [ OPTIONS ] config [ show ]\n"
	      "       mrc [ OPTIONS ] config set KEY VALUE [ KEY VALUE ]...\n"
	      "       mrc [ OPTIONS ] stats [ show ]\n"
	      "       mrc [ OPTIONS ] qp [ show [ qpn N ] [ remote ADDR ] ]\n"
	      "       mrc [ OPTIONS ] peer [ show [ ADDR ] ]\n"
	      "       mrc [ OPTIONS ] monitor [ -c COUNT ]\n"
	      "       mrc help\n"
	      "OPTIONS := { -j[son] | -p[retty] | -s[tats] | -h[elp] | -V[ersion] }\n",
	      stdout);
	mrc_help_keys();
	fputs("\nRead-only values of config show:", stdout);
	for (i = 0; i < mrc_nr_ro_params; i++)
		printf("%s %s", i ? "," : "", mrc_ro_params[i].key);
	fputs("\nThe kernel checks ranges and the rule\n"
	      "  starting-port-offset + 2^entropy-mask-bits - 1 <= 65535.\n"
	      "qp show prints the counters of a queue pair that are not zero,\n"
	      "all of them with -s; peer show the probes of every entropy value\n"
	      "with -s.  monitor prints packet events as they happen, one a\n"
	      "line (JSON Lines with -j), until COUNT events or a signal.\n"
	      "See mrc(8).\n", stdout);
}

static void mrc_version(void)
{
	printf("mrc utility, version %s (generic netlink family \"%s\" version %d)\n",
	       MRC_CLI_VERSION, MRC_GENL_NAME, MRC_GENL_VERSION);
}

/*
 * Options as iproute2 spells them: -j, -json, --json; -p, -pretty,
 * --pretty; and so on.  getopt_long_only() takes the one-dash long forms.
 */
static const struct option mrc_long_opts[] = {
	{ "json",	no_argument,	NULL,	'j' },
	{ "pretty",	no_argument,	NULL,	'p' },
	{ "stats",	no_argument,	NULL,	's' },
	{ "help",	no_argument,	NULL,	'h' },
	{ "version",	no_argument,	NULL,	'V' },
	{ NULL,		0,		NULL,	0 },
};

/* Return: -1 to go on with the command, else the exit status. */
static int mrc_parse_opts(int argc, char **argv, struct mrc_opts *opts)
{
	int c;

	opterr = 0;
	while ((c = getopt_long_only(argc, argv, "+jpshV", mrc_long_opts,
				     NULL)) != -1) {
		switch (c) {
		case 'j':
			opts->json = true;
			break;
		case 'p':
			opts->pretty = true;
			break;
		case 's':
			opts->stats = true;
			break;
		case 'h':
			mrc_help();
			return MRC_EXIT_OK;
		case 'V':
			mrc_version();
			return MRC_EXIT_OK;
		default:
			return mrc_usage_error("unknown option \"%s\"",
					       argv[optind - 1]);
		}
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct mrc_opts opts = {
		.json = false, .pretty = false, .stats = false,
	};
	int ret;

	ret = mrc_parse_opts(argc, argv, &opts);
	if (ret >= 0)
		return ret;
	argc -= optind;
	argv += optind;

	if (argc == 0)
		return mrc_usage_error("no command given");
	if (mrc_matches(argv[0], "config"))
		return mrc_cmd_config(argc - 1, argv + 1, &opts);
	if (mrc_matches(argv[0], "stats"))
		return mrc_cmd_stats(argc - 1, argv + 1, &opts);
	if (mrc_matches(argv[0], "qp"))
		return mrc_cmd_qp(argc - 1, argv + 1, &opts);
	if (mrc_matches(argv[0], "peer"))
		return mrc_cmd_peer(argc - 1, argv + 1, &opts);
	if (mrc_matches(argv[0], "monitor"))
		return mrc_cmd_monitor(argc - 1, argv + 1, &opts);
	if (mrc_matches(argv[0], "help")) {
		mrc_help();
		return MRC_EXIT_OK;
	}
	return mrc_usage_error("unknown command \"%s\"", argv[0]);
}
