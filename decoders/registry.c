/* Every decoder, in probe order: formats with a magic number first, the
 * weakly recognisable ones (podtrace has no magic) last. */
#include "decoders/decoder.h"

extern const struct decoder htdump_decoder;
extern const struct decoder atf_decoder;
extern const struct decoder dial9_decoder;
extern const struct decoder podtrace_decoder;
extern const struct decoder syscall_decoder;

const struct decoder *const decoders[] = {
	&syscall_decoder,
	&htdump_decoder,
	&atf_decoder,
	&dial9_decoder,
	&podtrace_decoder,
	NULL,
};

const struct decoder *decoder_find(const char *name)
{
	for (size_t i = 0; decoders[i]; i++)
		if (!strcmp(decoders[i]->name, name))
			return decoders[i];
	return NULL;
}
