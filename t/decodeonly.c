/* The bench's "decoder alone": the loader and the decoders over PATH, every
 * event counted and none added to the model, so that `make bench` can show
 * what the model costs beside what decoding costs.
 *
 *   decodeonly PATH...     prints the events decoded */
#include <stdio.h>

#include "src/trace.h"

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: decodeonly PATH...\n");
		return 2;
	}
	struct trace t;
	trace_init(&t);
	t.decode_only = true;
	for (int i = 1; i < argc; i++)
		trace_open(&t, argv[i]);
	trace_load_all(&t);
	printf("%llu events decoded\n", (unsigned long long)t.decoded);
	trace_free(&t);
	return 0;
}
