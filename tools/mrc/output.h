/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc(8): output of one record, as "key value" lines or as a JSON object.
 */
#ifndef _MRC_CLI_OUTPUT_H
#define _MRC_CLI_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct mrc_out {
	FILE *f;
	bool json;
	bool pretty;		/* multi-line JSON */
	unsigned int count;	/* members printed so far */
};

void mrc_out_begin(struct mrc_out *o, FILE *f, bool json, bool pretty);
void mrc_out_u64(struct mrc_out *o, const char *key, const char *json_key,
		 uint64_t val);
void mrc_out_str(struct mrc_out *o, const char *key, const char *json_key,
		 const char *val);
void mrc_out_bool(struct mrc_out *o, const char *key, const char *json_key,
		  bool val);
int mrc_out_end(struct mrc_out *o);

#endif /* _MRC_CLI_OUTPUT_H */
