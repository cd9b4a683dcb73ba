/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc(8): output of records, as "key value" lines or as JSON.
 */
#ifndef _MRC_CLI_OUTPUT_H
#define _MRC_CLI_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Containers open at once: the list, a record, a list in it and an object
 * in that.
 */
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
void mrc_out_array_begin(struct mrc_out *o, const char *json_key);
void mrc_out_array_end(struct mrc_out *o);
void mrc_out_u64(struct mrc_out *o, const char *key, const char *json_key,
		 uint64_t val);
void mrc_out_str(struct mrc_out *o, const char *key, const char *json_key,
		 const char *val);
void mrc_out_bool(struct mrc_out *o, const char *key, const char *json_key,
		  bool val);
int mrc_out_end(struct mrc_out *o);

/* Plain output: lines after a record's first are indented by this. */
#define MRC_LINE_INDENT		4
/* Plain output: items wrap before this column. */
#define MRC_LINE_WIDTH		80

/* Plain output: "key value" items, wrapped and indented. */
struct mrc_line {
	FILE *f;
	unsigned int col;	/* 0 at the start of a line */
	unsigned int indent;	/* of the next line */
	unsigned int wrap;	/* of a line the next item wraps to */
};

void mrc_line_init(struct mrc_line *l, FILE *f);
void mrc_line_break(struct mrc_line *l);
void mrc_line_wrap_indent(struct mrc_line *l, unsigned int indent);
void mrc_line_put(struct mrc_line *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* _MRC_CLI_OUTPUT_H */
