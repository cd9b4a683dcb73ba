/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Network set-up shared by the C selftests, each run in a network
 * namespace of its own.
 */
#ifndef MRC_TESTNET_H
#define MRC_TESTNET_H

#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

/* The number @s gives option @what of program @prog, at most @max; an
 * invalid one ends the program with a message and exit status @code.
 */
static inline unsigned long mrc_arg_num(const char *prog, const char *s,
					unsigned long max, const char *what,
					int code)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || !*s || *end || v > max) {
		fprintf(stderr, "%s: bad %s \"%s\"\n", prog, what, s);
		exit(code);
	}
	return v;
}

/* Bring lo up; 0 or -errno. */
static inline int lo_up(void)
{
	struct ifreq ifr;
	int fd, ret = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0) {
		ret = -errno;
	} else {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
			ret = -errno;
	}
	close(fd);
	return ret;
}

/* A peer that never answers: a dummy device discards what is sent to
 * its subnet (a port nobody bound on loopback refuses data at once).
 */
#define HOLE4	"192.0.2.1"
#define HOLE6	"2001:db8::1"

/* Make the black hole; NULL, or the command that failed. */
static inline const char *hole_up(void)
{
	static const char *const cmds[] = {
		"ip link add mrchole type dummy",
		"ip link set mrchole up",
		"ip addr add 192.0.2.254/24 dev mrchole",
		"ip -6 addr add 2001:db8::fe/64 dev mrchole nodad",
	};
	unsigned int i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (system(cmds[i]))
			return cmds[i];
	return NULL;
}

#endif /* MRC_TESTNET_H */
