#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The results' Markdown (tools/bench/report.sh) as reStructuredText, for
# Documentation/benchmarks.rst to include:
#
#   tools/bench/md2rst.sh results.md IMAGE_DIR >results.rst
#
# Only what report.sh writes: headings "#", "##" and "###", paragraphs, tables
# of pipes (a csv-table each, its first row the header), and images
# "![NAME](FILE)" (an image directive, FILE under IMAGE_DIR, a path
# relative to the document that includes the output).  The "#" title
# becomes a section "Latest results", of the including document's first
# level ("="); "##" its subsections ("-"), "###" theirs ("~").

set -euo pipefail

[ $# -eq 2 ] || {
	echo "usage: $0 RESULTS.md IMAGE_DIR" >&2
	exit 2
}

awk -v dir="$2" '
function underline(s, c,   u) {
	u = s
	gsub(/./, c, u)
	return u
}
# A Markdown table cell as a CSV field: quotes doubled, inside quotes.
function field(s) {
	gsub(/^ +| +$/, "", s)
	gsub(/"/, "\"\"", s)
	return "\"" s "\""
}
function end_table() {
	if (intable)
		print ""
	intable = 0
}
/^\|/ {
	line = $0
	sub(/^\|/, "", line)
	sub(/\|$/, "", line)
	# The alignment row says nothing csv-table needs.
	if (line ~ /^[-:| ]+$/)
		next
	# Cells hold no pipe; an empty one stays a cell.
	n = split(line, cells, /\|/)
	if (!intable) {
		print ".. csv-table::"
		print "   :header-rows: 1"
		print ""
		intable = 1
	}
	row = ""
	for (i = 1; i <= n; i++)
		row = row (i > 1 ? ", " : "") field(cells[i])
	print "   " row
	next
}
{ end_table() }
/^# / {
	print "Latest results"
	print "=============="
	next
}
/^## / {
	t = substr($0, 4)
	print t
	print underline(t, "-")
	next
}
/^### / {
	t = substr($0, 5)
	print t
	print underline(t, "~")
	next
}
/^!\[[^]]*\]\([^)]*\)$/ {
	f = $0
	sub(/^!\[[^]]*\]\(/, "", f)
	sub(/\)$/, "", f)
	alt = $0
	sub(/^!\[/, "", alt)
	sub(/\].*/, "", alt)
	print ".. image:: " dir "/" f
	print "   :alt: " alt
	next
}
{ print }
END { end_table() }
' "$1"
