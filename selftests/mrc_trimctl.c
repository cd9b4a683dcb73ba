// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_trimctl: set the rule of mrc_trim.bpf.c, the trimming tc program,
 * and read its counts, through its maps pinned in bpffs.
 *
 *   mrc_trimctl [-d DIR] every N [dscp D]
 *   mrc_trimctl [-d DIR] prob P [dscp D]          P in [0, 1]
 *   mrc_trimctl [-d DIR] backlog BYTES KBIT [dscp D]   KBIT: the link rate
 *   mrc_trimctl [-d DIR] pace BYTES KBIT [delay US] [dscp D]
 *                                                 the program paces
 *   mrc_trimctl [-d DIR] off
 *   mrc_trimctl [-d DIR] show                     data N trimmed N failed N
 *   mrc_trimctl [-d DIR] reset                    the counts to 0
 *
 * DIR is where tc pinned the maps (default /sys/fs/bpf/tc/globals); D
 * the codepoint a trimmed packet gets: 12 (trimmed, the default) or 16
 * (trimmed on the last hop).  A new rule also starts its counts and its
 * queue again.  Plain bpf(2) calls: no libbpf needed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <sys/syscall.h>

#include "mrc_trim.h"

static const char *dir = "/sys/fs/bpf/tc/globals";

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int map_open(const char *name)
{
	union bpf_attr a;
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	memset(&a, 0, sizeof(a));
	a.pathname = (__u64)(unsigned long)path;
	fd = sys_bpf(BPF_OBJ_GET, &a);
	if (fd < 0) {
		fprintf(stderr, "mrc_trimctl: %s: %s (is mrc_trim.bpf.o attached?)\n",
			path, strerror(errno));
		exit(1);
	}
	return fd;
}

static void map_rw(int fd, void *val, int update)
{
	union bpf_attr a;
	__u32 key = 0;

	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (__u64)(unsigned long)&key;
	a.value = (__u64)(unsigned long)val;
	if (sys_bpf(update ? BPF_MAP_UPDATE_ELEM : BPF_MAP_LOOKUP_ELEM, &a)) {
		fprintf(stderr, "mrc_trimctl: map %s: %s\n",
			update ? "update" : "lookup", strerror(errno));
		exit(1);
	}
}

static void usage(void)
{
	fprintf(stderr,
		"usage: mrc_trimctl [-d DIR] every N | prob P | backlog BYTES KBIT |\n"
		"                   pace BYTES KBIT [delay US] | off\n"
		"                   [dscp D]\n"
		"       mrc_trimctl [-d DIR] show | reset\n");
	exit(2);
}

static unsigned long long num(const char *s, unsigned long long max)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || v > max) {
		fprintf(stderr, "mrc_trimctl: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct mrc_trim_stats st;
	struct mrc_trim_cfg cfg;
	int i = 1, cfd, sfd;
	double p;

	if (argc > 2 && !strcmp(argv[1], "-d")) {
		dir = argv[2];
		i = 3;
	}
	if (i >= argc)
		usage();
	memset(&cfg, 0, sizeof(cfg));
	cfg.dscp = 12;
	if (!strcmp(argv[i], "show") || !strcmp(argv[i], "reset")) {
		if (i + 1 != argc)
			usage();
		sfd = map_open("mrc_trim_stats");
		memset(&st, 0, sizeof(st));
		if (!strcmp(argv[i], "reset")) {
			map_rw(sfd, &st, 1);
			return 0;
		}
		map_rw(sfd, &st, 0);
		printf("data %llu trimmed %llu failed %llu\n",
		       (unsigned long long)st.data,
		       (unsigned long long)st.trimmed,
		       (unsigned long long)st.failed);
		return 0;
	}
	if (!strcmp(argv[i], "off")) {
		cfg.rule = MRC_TRIM_OFF;
		i++;
	} else if (!strcmp(argv[i], "every") && i + 1 < argc) {
		cfg.rule = MRC_TRIM_EVERY;
		cfg.arg = num(argv[i + 1], 0xffffffff);
		if (!cfg.arg)
			usage();
		i += 2;
	} else if (!strcmp(argv[i], "prob") && i + 1 < argc) {
		cfg.rule = MRC_TRIM_PROB;
		p = strtod(argv[i + 1], NULL);
		if (!(p >= 0 && p <= 1))
			usage();
		cfg.arg = p >= 1 ? 0xffffffffu : (__u32)(p * 4294967296.0);
		i += 2;
	} else if ((!strcmp(argv[i], "backlog") || !strcmp(argv[i], "pace")) &&
		   i + 2 < argc) {
		cfg.rule = strcmp(argv[i], "pace") ? MRC_TRIM_BACKLOG :
						     MRC_TRIM_PACE;
		cfg.arg = num(argv[i + 1], 0xffffffff);
		cfg.rate = num(argv[i + 2], 1000000000) * 1000ULL / 8;
		if (!cfg.rate)
			usage();
		i += 3;
		if (cfg.rule == MRC_TRIM_PACE && i + 1 < argc &&
		    !strcmp(argv[i], "delay")) {
			/* Well inside fq's horizon (10 s by default). */
			cfg.delay_us = num(argv[i + 1], 1000000);
			i += 2;
		}
	} else {
		usage();
	}
	if (i + 2 == argc && !strcmp(argv[i], "dscp")) {
		cfg.dscp = num(argv[i + 1], 63);
		i += 2;
	}
	if (i != argc)
		usage();
	cfd = map_open("mrc_trim_cfg");
	sfd = map_open("mrc_trim_stats");
	memset(&st, 0, sizeof(st));
	map_rw(sfd, &st, 1);
	map_rw(cfd, &cfg, 1);
	return 0;
}
