/* ttv: command line.  See DESIGN.md "Command line" and `ttv --help`. */
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#include "src/bigmem.h"
#include "src/batch.h"
#include "src/stats.h"
#include "src/cli.h"
#include "src/esc.h"
#include "src/export.h"
#include "src/remote.h"
#include "src/report.h"
#include "src/saved.h"
#include "src/sql.h"
#include "ui/ui.h"

/* The viewer reads this long before drawing: probing and a decoder's first
 * look at the bytes tell a file no decoder takes (then there is no screen). */
#define FIRST_LOOK_NS 2000000

#define TTV_VERSION "0.1.0"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ttv [OPTIONS] PATH...            the viewer (the paths merged by time)\n"
		"       ttv --dump [--json] PATH...      every event, one per line, in time order\n"
		"       ttv --info [--json] PATH...      format, lanes, counts, time span, damage\n"
		"       ttv --stats [--json] PATH...     counts per type and lane, span durations\n"
		"       ttv --report [--json] PATH...    per name: total, self, calls, min, max\n"
		"       ttv --diff [--json] A B          per name: A against B, and the change\n"
		"       ttv --export chrome PATH...      Chrome trace events (for Perfetto)\n"
		"       ttv --export folded PATH...      call paths by self time (flame graphs)\n"
		"       ttv --export speedscope PATH...  speedscope JSON, a profile per lane\n"
		"       ttv --sql QUERY [--csv] PATH...  SQL over the tables events, spans,\n"
		"                                        lanes, types, sources, damage\n"
		"\n"
		"      --sort KEY        --report's order: total (default), self, calls, min,\n"
		"                        max, mean or name\n"
		"  -f, --follow          keep reading as the files grow (with --dump: print\n"
		"                        each event as it arrives, like tail -f)\n"
		"      --no-follow       do not follow (overrides follow = yes in the config)\n"
		"  -e, --filter REGEX    keep matching events (repeatable; !REGEX drops them;\n"
		"                        lane:RE type:RE FIELD:RE match one part)\n"
		"      --format NAME     skip probing:");
	for (size_t i = 0; trace_format_name(i); i++)
		fprintf(f, " %s", trace_format_name(i));
	fprintf(f,
		"\n"
		"      --keymap NAME     key bindings (less, vi, emacs, or a file)\n"
		"      --theme NAME      colours (dark, light, mono, or a file)\n"
		"      --time WHEN       times: relative (default), trace (its clock) or wall\n"
		"      --align           line up the sources: each one's first event at time 0\n"
		"                        (--info says whether their clocks can be related)\n"
		"      --memory SIZE     memory the index may take (512M, 8G ...; default half\n"
		"                        the RAM); past it, it is kept in a file under\n"
		"                        $XDG_CACHE_HOME/ttv that no one else sees\n"
		"      --no-cache        index afresh, and save no index for the next run\n"
		"      --cache-size SIZE room for saved indexes in $XDG_CACHE_HOME/ttv (default\n"
		"                        2G; the least recently used go first)\n"
		"      --remote-timeout SECS  how long a far side (HOST:PATH) may take to\n"
		"                        answer (default 30); past it the connection is\n"
		"                        broken off, as a lost one\n"
		"  -h, --help            this text\n"
		"  -V, --version         the version\n"
		"PATH may be - for standard input, tcp:HOST:PORT (HawkTracer), or HOST:PATH or\n"
		"ssh://[USER@]HOST[:PORT]/PATH for a trace on another machine, read through ssh\n"
		"($TTV_SSH when set; ./a:b is a local name); gzip is read whatever the name.\n"
		"Defaults for --keymap, --theme, --time and --follow are read from\n"
		"$XDG_CONFIG_HOME/ttv/config (see ttv(1)).\n"
		"Exit status: 0 clean, 3 some input damaged or cut short, 1 nothing readable,\n"
		"2 usage.\n");
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
	enum { O_DUMP = 256, O_JSON, O_INFO, O_STATS, O_EXPORT, O_FORMAT, O_KEYMAP, O_THEME, O_TIME, O_ALIGN,
	       O_NOFOLLOW, O_MEMORY, O_NOCACHE, O_CACHESIZE, O_REPORT, O_SORT, O_DIFF, O_SQL, O_CSV,
	       O_REMOTE_TIMEOUT };
	static const struct option opts[] = {
		{"dump", no_argument, NULL, O_DUMP},
		{"json", no_argument, NULL, O_JSON},
		{"csv", no_argument, NULL, O_CSV},
		{"sql", required_argument, NULL, O_SQL},
		{"info", no_argument, NULL, O_INFO},
		{"stats", no_argument, NULL, O_STATS},
		{"report", no_argument, NULL, O_REPORT},
		{"diff", no_argument, NULL, O_DIFF},
		{"sort", required_argument, NULL, O_SORT},
		{"export", required_argument, NULL, O_EXPORT},
		{"follow", no_argument, NULL, 'f'},
		{"no-follow", no_argument, NULL, O_NOFOLLOW},
		{"filter", required_argument, NULL, 'e'},
		{"format", required_argument, NULL, O_FORMAT},
		{"keymap", required_argument, NULL, O_KEYMAP},
		{"theme", required_argument, NULL, O_THEME},
		{"time", required_argument, NULL, O_TIME},
		{"align", no_argument, NULL, O_ALIGN},
		{"memory", required_argument, NULL, O_MEMORY},
		{"no-cache", no_argument, NULL, O_NOCACHE},
		{"cache-size", required_argument, NULL, O_CACHESIZE},
		{"remote-timeout", required_argument, NULL, O_REMOTE_TIMEOUT},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{0},
	};
	memset(c, 0, sizeof *c);
	c->cfg = config_load(NULL, &c->cfg_errors);
	int follow = -1; /* -f / --no-follow, else the config's (viewer only) */
	c->time = c->cfg->time;
	opterr = 0;
	int o;
	while ((o = getopt_long(argc, argv, ":fe:hV", opts, NULL)) != -1) {
		switch (o) {
		case O_DUMP:
		case O_INFO:
		case O_STATS:
		case O_REPORT:
		case O_DIFF:
		case O_EXPORT:
		case O_SQL:
			if (c->mode != MODE_VIEW)
				return usage_error("%s", "choose one of --dump, --info, --stats, --report, --diff, --export and --sql");
			c->mode = o == O_DUMP	 ? MODE_DUMP
				  : o == O_INFO	 ? MODE_INFO
				  : o == O_STATS	 ? MODE_STATS
				  : o == O_REPORT ? MODE_REPORT
				  : o == O_DIFF	 ? MODE_DIFF
				  : o == O_SQL	 ? MODE_SQL
						  : MODE_EXPORT;
			if (o == O_SQL)
				c->sql = optarg;
			if (o == O_EXPORT) {
				if (strcmp(optarg, "chrome") && strcmp(optarg, "folded") && strcmp(optarg, "speedscope"))
					return usage_error("unknown export format '%s' (there is: chrome, folded, speedscope)",
							   optarg);
				c->export_format = optarg;
			}
			break;
		case O_SORT:
			if (!report_sort_known(optarg))
				return usage_error("--sort: want total, self, calls, min, max, mean or name, not '%s'",
						   optarg);
			c->sort = optarg;
			break;
		case O_JSON: c->json = true; break;
		case O_CSV: c->csv = true; break;
		case 'f': follow = 1; break;
		case O_NOFOLLOW: follow = 0; break;
		case O_ALIGN: c->align = true; break;
		case O_TIME:
			if (!time_mode_parse(optarg, &c->time))
				return usage_error("--time: want relative, trace or wall, not '%s'", optarg);
			break;
		case 'e':
			xgrow(&c->filters, &c->capfilters, c->nfilters + 1, sizeof *c->filters);
			c->filters[c->nfilters++] = optarg;
			break;
		case O_FORMAT:
			if (!trace_format_known(optarg))
				return usage_error("unknown format '%s' (see ttv --help)", optarg);
			c->format = optarg;
			break;
		case O_MEMORY:
		case O_CACHESIZE: {
			uint64_t bytes;
			if (!bigmem_parse_size(optarg, &bytes))
				return usage_error(o == O_MEMORY ? "--memory: want a size such as 512M or 8G, not '%s'"
								 : "--cache-size: want a size such as 512M or 8G, not '%s'",
						   optarg);
			(o == O_MEMORY ? bigmem_set_budget : saved_set_limit)(bytes);
			break;
		}
		case O_NOCACHE: saved_set_limit(0); break;
		case O_REMOTE_TIMEOUT: {
			char *end;
			unsigned long s = strtoul(optarg, &end, 10);
			if (end == optarg || *end || s < 1 || s > 86400 || optarg[0] == '-')
				return usage_error("--remote-timeout: want seconds from 1 to 86400, not '%s'", optarg);
			remote_set_timeout((unsigned)s);
			break;
		}
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
	if (c->json && (c->mode == MODE_VIEW || c->mode == MODE_EXPORT))
		return usage_error("%s", "--json goes with --dump, --info, --stats, --report, --diff or --sql");
	if (c->csv && c->mode != MODE_SQL)
		return usage_error("%s", "--csv goes with --sql");
	if (c->csv && c->json)
		return usage_error("%s", "choose one of --json and --csv");
	if (c->sort && c->mode != MODE_REPORT)
		return usage_error("%s", "--sort goes with --report");
	c->follow = follow >= 0 ? follow : c->mode == MODE_VIEW && c->cfg->follow;
	if (c->follow && c->mode != MODE_VIEW && c->mode != MODE_DUMP)
		return usage_error("%s", "--follow goes with the viewer or --dump");
	/* Batch modes draw nothing, but a keymap or theme they were given that
	 * does not exist is a mistake (a script's typo): said, as the viewer does. */
	if (c->mode != MODE_VIEW && c->keymap && !ui_data_exists("keymaps", c->keymap, ".keys"))
		return usage_error("keymap '%s' not found", c->keymap);
	if (c->mode != MODE_VIEW && c->theme && !ui_data_exists("themes", c->theme, ".theme"))
		return usage_error("theme '%s' not found", c->theme);
	if (!c->keymap)
		c->keymap = c->cfg->keymap;
	if (!c->theme)
		c->theme = c->cfg->theme;
	if (optind >= argc)
		return usage_error("%s", "no trace to open: give a PATH (or - for standard input)");
	c->paths = argv + optind;
	c->npaths = (size_t)(argc - optind);
	if (c->mode == MODE_DIFF && c->npaths != 2)
		return usage_error("%s", "--diff compares two traces: give A and B");
	return 0;
}

void cli_free(struct cli *c)
{
	free(c->filters);
	config_free(c->cfg);
	buf_free(&c->cfg_errors);
}

int main(int argc, char **argv)
{
	start_ns = now_ns();
	/* Big arrays (events, tables) grow by realloc: keep them in their own
	 * mappings so growth is an mremap, not a copy that fragments the heap.
	 * A fixed threshold also stops glibc from raising it on its own. */
	mallopt(M_MMAP_THRESHOLD, 256 << 10);
	struct cli c;
	int r = cli_parse(&c, argc, argv);
	if (r) {
		cli_free(&c);
		return r;
	}
	if (c.help) {
		usage(stdout);
		cli_free(&c);
		return 0;
	}
	if (c.version) {
		printf("ttv %s\n", TTV_VERSION);
		cli_free(&c);
		return 0;
	}
	/* The viewer shows these in its status line; batch modes say them here. */
	if (c.mode != MODE_VIEW && c.cfg_errors.len) {
		for (const char *p = buf_str(&c.cfg_errors); *p;) {
			size_t n = strcspn(p, "\n");
			fprintf(stderr, "%s: %.*s\n", progname, (int)n, p);
			p += n + (p[n] == '\n');
		}
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
			cli_free(&c);
			return 2;
		}
	}

	struct trace t;
	trace_init(&t);
	trace_catch_sigbus(&t);
	t.format = c.format;
	t.align = c.align;
	for (size_t i = 0; i < c.npaths; i++) {
		trace_open(&t, c.paths[i]);
		t.nsrc_first = i ? t.nsrc_first : (uint32_t)t.nsrc;
	}
	if (c.mode == MODE_VIEW)
		t.follow = c.follow;
	if (c.mode == MODE_VIEW || !c.follow) /* (--dump -f prints as it reads) */
		trace_restore(&t);

	int status;
	if (c.mode == MODE_VIEW) { /* a first look: a file no decoder takes fails now */
		trace_step(&t, FIRST_LOOK_NS, false);
		t.one_store = true; /* (made after it: the first screen need not wait) */
	}
	if (c.mode == MODE_VIEW && !trace_any_readable(&t)) {
		trace_report(&t); /* as less does: nothing to show, no screen */
		status = 1;
	} else if (c.mode == MODE_VIEW) {
		status = ui_run(&t, &fs, &c);
	} else if (c.follow) {
		bool fit = batch_follow(&t, &fs, c.json, c.time, stdout);
		trace_report(&t);
		status = !fit ? 2 : !trace_any_readable(&t) ? 1 : trace_damaged(&t) ? 3 : 0;
	} else {
		int sql_status = 0;
		trace_load_all(&t);
		if (!batch_filters_fit(&fs, &t)) {
			trace_free(&t);
			filterset_free(&fs);
			cli_free(&c);
			return 2;
		}
		if (c.mode == MODE_INFO) /* (first: it says what became of the index) */
			trace_save(&t);
		switch (c.mode) {
		case MODE_INFO: batch_info(&t, c.json, stdout); break;
		case MODE_STATS: batch_stats(&t, &fs, c.json, stdout); break;
		case MODE_REPORT: batch_report(&t, &fs, c.sort, c.json, stdout); break;
		case MODE_DIFF: batch_diff(&t, &fs, c.json, stdout); break;
		case MODE_EXPORT:
			(!strcmp(c.export_format, "folded")       ? export_folded
			 : !strcmp(c.export_format, "speedscope") ? export_speedscope
								  : export_chrome)(&t, &fs, stdout);
			break;
		case MODE_SQL:
			sql_status = batch_sql(&t, &fs, c.sql, c.json ? SQL_JSON : c.csv ? SQL_CSV : SQL_TABLE, stdout);
			break;
		case MODE_DUMP:
		case MODE_VIEW: batch_dump(&t, &fs, c.json, c.time, stdout); break;
		}
		fflush(stdout);
		trace_report(&t);
		if (fs.too_expensive)
			fprintf(stderr, "%s: a filter pattern was too expensive for some events (pcre2 limits); "
					"those events did not match\n", progname);
		trace_save(&t);
		trace_save_tell(&t, stderr);
		status = sql_status ? sql_status : !trace_any_readable(&t) ? 1 : trace_damaged(&t) ? 3 : 0;
	}
	trace_free(&t);
	filterset_free(&fs);
	cli_free(&c);
	return status;
}
