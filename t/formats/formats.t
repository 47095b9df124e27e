#!/bin/sh
# The formats table (t/formats/table) is the registry: every format ttv reads (the
# list in its --help) has a row and every row is a format ttv reads, since the
# cross-format tests, the fuzz seeds and replay loop over the table.  Each
# row is complete: a writer, a shared sample, its own test and fuzz target.
. "$(dirname "$0")/../lib.sh"

registry=$("$TTV" --help | sed -n 's/.*--format NAME *skip probing: *//p' | tr ' ' '\n' | sort | xargs)
ok "$([ -n "$registry" ]; echo $?)" "--help lists the formats ($registry)"
is "$(formats | sort | xargs)" "$registry" "t/formats/table has a row for each of them, and no other"
is "$(formats | sort | uniq -d | xargs)" "" "no format has two rows"
columns=$(awk '!/^#/ && NF { print NF; exit }' "$FORMATS")
is "$(awk -v n="$columns" '!/^#/ && NF && NF != n' "$FORMATS")" "" "every row has a cell in each of the $columns columns"

for fmt in $(formats); do
	writer=$(format_field "$fmt" writer)
	ok "$([ -x "$TBIN/$writer" ] && [ -f "$T_DIR/$writer.c" ]; echo $?)" "$fmt: its writer build/t/$writer (t/$writer.c)"
	s=$(format_field "$fmt" sample)
	ok "$([ -f "$SAMPLES/$s" ]; echo $?)" "$fmt: its sample t/samples/$s is a file"
	ok "$([ -f "$HERE/$fmt.t" ]; echo $?)" "$fmt: t/formats/$fmt.t exists"
	ok "$([ -f "$T_DIR/fuzz/fuzz_$fmt.c" ]; echo $?)" "$fmt: t/fuzz/fuzz_$fmt.c exists"
	unit=$(format_field "$fmt" unit)
	ok "$(case $unit in '' | *[!0-9]* | 0) echo 1 ;; *) echo 0 ;; esac)" "$fmt: unit $unit is a byte count"
done
done_testing
