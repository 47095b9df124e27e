/* ttv: command line.  See DESIGN.md "Command line" and `ttv --help`. */
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#include "decoders/decoder.h"
#include "src/batch.h"
#include "src/cli.h"
#include "src/esc.h"
#include "ui/ui.h"

#define TTV_VERSION "0.1.0"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ttv [OPTIONS] PATH...            open the viewer (paths are merged by time)\n"
		"       ttv --dump [--json] PATH...      every event, one per line, in time order\n"
		"       ttv --info [--json] PATH...      format, lanes, counts, time span, damage\n"
		"       ttv --stats [--json] PATH...     counts per type and lane, span durations\n"
		"\n"
		"  -f, --follow          keep reading as the files grow (with --dump: print\n"
		"                        each event as it arrives, like tail -f)\n"
		"  -e, --filter REGEX    keep matching events (repeatable; !REGEX drops them;\n"
		"                        lane:RE type:RE FIELD:RE match one part)\n"
		"      --format NAME     skip probing:");
	for (size_t i = 0; decoders[i]; i++)
		fprintf(f, " %s", decoders[i]->name);
	fprintf(f,
		"\n"
		"      --keymap NAME     key bindings (less, vi, emacs, or a file)\n"
		"      --theme NAME      colours (dark, light, mono, or a file)\n"
		"  -h, --help            this text\n"
		"  -V, --version         the version\n"
		"PATH may be - for standard input; gzip is read whatever the name.\n"
		"Exit status: 0 clean, 3 some input damaged or cut short, 1 nothing readable, 2 usage.\n");
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", progname);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'ttv --help'.\n");
	return 2;
}

int cli_parse(struct cli *c, int argc, char **argv)
{
	enum { O_DUMP = 256, O_JSON, O_INFO, O_STATS, O_FORMAT, O_KEYMAP, O_THEME };
	static const struct option opts[] = {
		{"dump", no_argument, NULL, O_DUMP},
		{"json", no_argument, NULL, O_JSON},
		{"info", no_argument, NULL, O_INFO},
		{"stats", no_argument, NULL, O_STATS},
		{"follow", no_argument, NULL, 'f'},
		{"filter", required_argument, NULL, 'e'},
		{"format", required_argument, NULL, O_FORMAT},
		{"keymap", required_argument, NULL, O_KEYMAP},
		{"theme", required_argument, NULL, O_THEME},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{0},
	};
	memset(c, 0, sizeof *c);
	opterr = 0;
	int o;
	while ((o = getopt_long(argc, argv, ":fe:hV", opts, NULL)) != -1) {
		switch (o) {
		case O_DUMP:
		case O_INFO:
		case O_STATS:
			if (c->mode != MODE_VIEW)
				return usage_error("%s", "choose one of --dump, --info and --stats");
			c->mode = o == O_DUMP ? MODE_DUMP : o == O_INFO ? MODE_INFO : MODE_STATS;
			break;
		case O_JSON: c->json = true; break;
		case 'f': c->follow = true; break;
		case 'e':
			xgrow(&c->filters, &c->capfilters, c->nfilters + 1, sizeof *c->filters);
			c->filters[c->nfilters++] = optarg;
			break;
		case O_FORMAT:
			if (!decoder_find(optarg))
				return usage_error("unknown format '%s' (see ttv --help)", optarg);
			c->format = optarg;
			break;
		case O_KEYMAP: c->keymap = optarg; break;
		case O_THEME: c->theme = optarg; break;
		case 'h': c->help = true; break;
		case 'V': c->version = true; break;
		case ':': return usage_error("option '%s' needs an argument", argv[optind - 1]);
		default: return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (c->help || c->version)
		return 0;
	if (c->json && (c->mode == MODE_VIEW))
		return usage_error("%s", "--json goes with --dump, --info or --stats");
	if (c->follow && (c->mode == MODE_INFO || c->mode == MODE_STATS))
		return usage_error("%s", "--follow goes with the viewer or --dump");
	if (optind >= argc)
		return usage_error("%s", "no trace to open: give a PATH (or - for standard input)");
	c->paths = argv + optind;
	c->npaths = (size_t)(argc - optind);
	return 0;
}

int main(int argc, char **argv)
{
	/* Big arrays (events, tables) grow by realloc: keep them in their own
	 * mappings so growth is an mremap, not a copy that fragments the heap.
	 * A fixed threshold also stops glibc from raising it on its own. */
	mallopt(M_MMAP_THRESHOLD, 256 << 10);
	struct cli c;
	int r = cli_parse(&c, argc, argv);
	if (r) {
		free(c.filters);
		return r;
	}
	if (c.help) {
		usage(stdout);
		free(c.filters);
		return 0;
	}
	if (c.version) {
		printf("ttv %s\n", TTV_VERSION);
		free(c.filters);
		return 0;
	}
	struct filterset fs = {0};
	for (size_t i = 0; i < c.nfilters; i++) {
		char *err = NULL;
		if (!filterset_add(&fs, c.filters[i], &err)) {
			struct buf b = {0};
			esc_term(&b, c.filters[i], strlen(c.filters[i]));
			fprintf(stderr, "%s: bad filter '%s': %s\n", progname, buf_str(&b), err);
			buf_free(&b);
			free(err);
			filterset_free(&fs);
			free(c.filters);
			return 2;
		}
	}

	struct trace t;
	trace_init(&t);
	t.format = c.format;
	for (size_t i = 0; i < c.npaths; i++)
		trace_open(&t, c.paths[i]);

	int status;
	if (c.mode == MODE_VIEW) {
		t.follow = c.follow;
		status = ui_run(&t, &fs, &c);
	} else if (c.follow) {
		batch_follow(&t, &fs, c.json, stdout);
		trace_report(&t);
		status = !trace_any_readable(&t) ? 1 : trace_damaged(&t) ? 3 : 0;
	} else {
		trace_load_all(&t);
		switch (c.mode) {
		case MODE_INFO: batch_info(&t, c.json, stdout); break;
		case MODE_STATS: batch_stats(&t, &fs, c.json, stdout); break;
		case MODE_DUMP:
		case MODE_VIEW: batch_dump(&t, &fs, c.json, stdout); break;
		}
		fflush(stdout);
		trace_report(&t);
		if (fs.too_expensive)
			fprintf(stderr, "%s: a filter pattern was too expensive for some events (pcre2 limits); "
					"those events did not match\n", progname);
		status = !trace_any_readable(&t) ? 1 : trace_damaged(&t) ? 3 : 0;
	}
	trace_free(&t);
	filterset_free(&fs);
	free(c.filters);
	return status;
}
