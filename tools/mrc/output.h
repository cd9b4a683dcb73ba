/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc(8): output of records, as "key value" lines or as JSON.
 */
#ifndef _MRC_CLI_OUTPUT_H
#define _MRC_CLI_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Containers open at once: the list, a record and one nest in it. */
#define MRC_OUT_MAX_DEPTH	4

struct mrc_out {
	FILE *f;
	bool json;
	bool pretty;		/* multi-line JSON */
	unsigned int depth;	/* JSON containers open */
	/* members printed so far, and the closing bracket, per container */
	unsigned int count[MRC_OUT_MAX_DEPTH];
	char close[MRC_OUT_MAX_DEPTH];
};

void mrc_out_begin(struct mrc_out *o, FILE *f, bool json, bool pretty);
void mrc_out_begin_list(struct mrc_out *o, FILE *f, bool json, bool pretty);
void mrc_out_object_begin(struct mrc_out *o, const char *json_key);
void mrc_out_object_end(struct mrc_out *o);
void mrc_out_u64(struct mrc_out *o, const char *key, const char *json_key,
		 uint64_t val);
void mrc_out_str(struct mrc_out *o, const char *key, const char *json_key,
		 const char *val);
void mrc_out_bool(struct mrc_out *o, const char *key, const char *json_key,
		  bool val);
int mrc_out_end(struct mrc_out *o);

#endif /* _MRC_CLI_OUTPUT_H */
