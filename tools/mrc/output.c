// SPDX-License-Identifier: GPL-2.0
/*
 * mrc(8): output of one record, as "key value" lines or as a JSON object.
 *
 * Plain output is one "key value" line per member, with the kebab-case
 * key.  JSON output is one object with the snake_case keys, on one line, or
 * indented by four spaces per member with pretty printing (as ip -j -p).
 */
#include <inttypes.h>

#include "output.h"

void mrc_out_begin(struct mrc_out *o, FILE *f, bool json, bool pretty)
{
	o->f = f;
	o->json = json;
	o->pretty = pretty;
	o->count = 0;
	if (json)
		fputc('{', f);
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

/* Start a member: the separator and key in JSON, the key otherwise. */
static void mrc_out_key(struct mrc_out *o, const char *key,
			const char *json_key)
{
	if (!o->json) {
		fprintf(o->f, "%s ", key);
		return;
	}
	if (o->count)
		fputc(',', o->f);
	if (o->pretty)
		fputs("\n    ", o->f);
	mrc_out_json_string(o->f, json_key);
	fputs(o->pretty ? ": " : ":", o->f);
	o->count++;
}

static void mrc_out_member_end(struct mrc_out *o)
{
	if (!o->json)
		fputc('\n', o->f);
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

/* Return: 0, or -1 if writing failed (e.g. stdout is a full disk). */
int mrc_out_end(struct mrc_out *o)
{
	if (o->json) {
		if (o->pretty && o->count)
			fputc('\n', o->f);
		fputs("}\n", o->f);
	}
	if (fflush(o->f) || ferror(o->f))
		return -1;
	return 0;
}
