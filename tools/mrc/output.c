// SPDX-License-Identifier: GPL-2.0
/*
 * mrc(8): output of records, as "key value" lines or as JSON.
 *
 * Plain output is one "key value" line per member, with the kebab-case
 * key.  JSON output is one object (or a list of objects, which may hold
 * objects of their own) with the snake_case keys, on one line, or indented
 * by four spaces per level with pretty printing.
 *
 * Records too long for one "key value" line each (a queue pair) are
 * items on lines wrapped before MRC_LINE_WIDTH columns: struct mrc_line.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "output.h"

static void mrc_out_open(struct mrc_out *o, char open, char close)
{
	fputc(open, o->f);
	if (o->depth < MRC_OUT_MAX_DEPTH) {
		o->count[o->depth] = 0;
		o->close[o->depth] = close;
	}
	o->depth++;
}

static void mrc_out_init(struct mrc_out *o, FILE *f, bool json, bool pretty)
{
	o->f = f;
	o->json = json;
	o->pretty = pretty;
	o->depth = 0;
}

/* Start a record: one JSON object. */
void mrc_out_begin(struct mrc_out *o, FILE *f, bool json, bool pretty)
{
	mrc_out_init(o, f, json, pretty);
	if (json)
		mrc_out_open(o, '{', '}');
}

/* Start a list of records: a JSON array, of mrc_out_object_begin()s. */
void mrc_out_begin_list(struct mrc_out *o, FILE *f, bool json, bool pretty)
{
	mrc_out_init(o, f, json, pretty);
	if (json)
		mrc_out_open(o, '[', ']');
}

static void mrc_out_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void mrc_out_indent(struct mrc_out *o, unsigned int depth)
{
	fputc('\n', o->f);
	fprintf(o->f, "%*s", (int)(4 * depth), "");
}

/*
 * Start a JSON member: the separator, the line break and indent, and the
 * key unless @json_key is NULL (a member of a list).
 */
static void mrc_out_json_member(struct mrc_out *o, const char *json_key)
{
	unsigned int i = o->depth - 1;

	if (o->depth && i < MRC_OUT_MAX_DEPTH && o->count[i]++)
		fputc(',', o->f);
	if (o->pretty)
		mrc_out_indent(o, o->depth);
	if (json_key) {
		mrc_out_json_string(o->f, json_key);
		fputs(o->pretty ? ": " : ":", o->f);
	}
}

/* Start a member: the separator and key in JSON, the key otherwise. */
static void mrc_out_key(struct mrc_out *o, const char *key,
			const char *json_key)
{
	if (o->json)
		mrc_out_json_member(o, json_key);
	else
		fprintf(o->f, "%s ", key);
}

static void mrc_out_member_end(struct mrc_out *o)
{
	if (!o->json)
		fputc('\n', o->f);
}

/*
 * JSON only: open an object, as a member named @json_key of the object
 * open now, or as the next element of the list open now (@json_key NULL).
 */
void mrc_out_object_begin(struct mrc_out *o, const char *json_key)
{
	if (!o->json)
		return;
	mrc_out_json_member(o, json_key);
	mrc_out_open(o, '{', '}');
}

static void mrc_out_close(struct mrc_out *o)
{
	unsigned int i = o->depth - 1;
	char close = '}';

	if (i < MRC_OUT_MAX_DEPTH) {
		close = o->close[i];
		if (o->pretty && o->count[i])
			mrc_out_indent(o, i);
	}
	fputc(close, o->f);
	o->depth--;
}

void mrc_out_object_end(struct mrc_out *o)
{
	if (o->json && o->depth > 1)
		mrc_out_close(o);
}

/*
 * JSON only: open an array, as a member named @json_key of the object
 * open now; its elements are mrc_out_u64()s or mrc_out_object_begin()s
 * with no key.
 */
void mrc_out_array_begin(struct mrc_out *o, const char *json_key)
{
	if (!o->json)
		return;
	mrc_out_json_member(o, json_key);
	mrc_out_open(o, '[', ']');
}

void mrc_out_array_end(struct mrc_out *o)
{
	mrc_out_object_end(o);
}

void mrc_out_u64(struct mrc_out *o, const char *key, const char *json_key,
		 uint64_t val)
{
	mrc_out_key(o, key, json_key);
	fprintf(o->f, "%" PRIu64, val);
	mrc_out_member_end(o);
}

void mrc_out_str(struct mrc_out *o, const char *key, const char *json_key,
		 const char *val)
{
	mrc_out_key(o, key, json_key);
	if (o->json)
		mrc_out_json_string(o->f, val);
	else
		fputs(val, o->f);
	mrc_out_member_end(o);
}

/* Plain output names a switch "on" or "off"; JSON has true and false. */
void mrc_out_bool(struct mrc_out *o, const char *key, const char *json_key,
		  bool val)
{
	mrc_out_key(o, key, json_key);
	if (o->json)
		fputs(val ? "true" : "false", o->f);
	else
		fputs(val ? "on" : "off", o->f);
	mrc_out_member_end(o);
}

/*
 * Close what is still open and flush.
 *
 * Return: 0, or -1 if writing failed (e.g. stdout is a full disk).
 */
int mrc_out_end(struct mrc_out *o)
{
	if (o->json) {
		while (o->depth)
			mrc_out_close(o);
		fputc('\n', o->f);
	}
	if (fflush(o->f) || ferror(o->f))
		return -1;
	return 0;
}

/* Start a record at column 0; the lines after the first are indented. */
void mrc_line_init(struct mrc_line *l, FILE *f)
{
	l->f = f;
	l->col = 0;
	l->indent = 0;
	l->wrap = MRC_LINE_INDENT;
}

/* End the line, if one is started; the next is indented. */
void mrc_line_break(struct mrc_line *l)
{
	if (l->col)
		fputc('\n', l->f);
	l->col = 0;
	l->indent = MRC_LINE_INDENT;
	l->wrap = MRC_LINE_INDENT;
}

/* Until the next mrc_line_break(), items that wrap are indented so. */
void mrc_line_wrap_indent(struct mrc_line *l, unsigned int indent)
{
	l->wrap = indent;
}

/* One item, after a blank, or on the next line if it would pass the width. */
void mrc_line_put(struct mrc_line *l, const char *fmt, ...)
{
	char item[128];
	unsigned int len;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(item, sizeof(item), fmt, ap);
	va_end(ap);
	len = (unsigned int)strlen(item);

	if (l->col && l->col + 1 + len > MRC_LINE_WIDTH) {
		fputc('\n', l->f);
		l->col = 0;
		l->indent = l->wrap;
	}
	if (!l->col) {
		fprintf(l->f, "%*s", (int)l->indent, "");
		l->col = l->indent;
	} else {
		fputc(' ', l->f);
		l->col++;
	}
	fputs(item, l->f);
	l->col += len;
}
