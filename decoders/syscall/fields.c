/* syscall/fields.c: an event's fields: arguments, results, buffers, structures */
#include "decoders/syscall/syscall.h"

struct flagname {
	uint64_t bit;
	const char *name;
};

static const char *flags_name(struct buf *b, uint64_t v, const struct flagname *t, size_t n)
{
	buf_reset(b);
	for (size_t i = 0; i < n; i++)
		if (t[i].bit && (v & t[i].bit) == t[i].bit) {
			buf_printf(b, "%s%s", b->len ? "|" : "", t[i].name);
			v &= ~t[i].bit;
		}
	if (v)
		buf_printf(b, "%s0x%llx", b->len ? "|" : "", (unsigned long long)v);
	return buf_str(b);
}

static const struct flagname open_flags[] = {
	{0100, "O_CREAT"}, {0200, "O_EXCL"}, {0400, "O_NOCTTY"}, {01000, "O_TRUNC"}, {02000, "O_APPEND"},
	{04000, "O_NONBLOCK"}, {04010000, "O_SYNC"}, {010000, "O_DSYNC"}, {020000, "O_ASYNC"}, {040000, "O_DIRECT"},
	{0100000, "O_LARGEFILE"}, {0200000, "O_DIRECTORY"}, {0400000, "O_NOFOLLOW"}, {01000000, "O_NOATIME"},
	{02000000, "O_CLOEXEC"}, {010000000, "O_PATH"}, {020000000, "O_TMPFILE"},
};
static const struct flagname prot_flags[] = {{1, "PROT_READ"}, {2, "PROT_WRITE"}, {4, "PROT_EXEC"}};
static const struct flagname map_flags[] = {
	{3, "MAP_SHARED_VALIDATE"}, {1, "MAP_SHARED"}, {2, "MAP_PRIVATE"}, {0x10, "MAP_FIXED"}, {0x20, "MAP_ANONYMOUS"},
	{0x100, "MAP_GROWSDOWN"}, {0x800, "MAP_DENYWRITE"}, {0x1000, "MAP_EXECUTABLE"}, {0x2000, "MAP_LOCKED"},
	{0x4000, "MAP_NORESERVE"}, {0x8000, "MAP_POPULATE"}, {0x10000, "MAP_NONBLOCK"}, {0x20000, "MAP_STACK"},
	{0x40000, "MAP_HUGETLB"}, {0x100000, "MAP_FIXED_NOREPLACE"},
};
static const struct flagname poll_flags[] = {
	{0x1, "POLLIN"}, {0x2, "POLLPRI"}, {0x4, "POLLOUT"}, {0x8, "POLLERR"}, {0x10, "POLLHUP"}, {0x20, "POLLNVAL"},
	{0x40, "POLLRDNORM"}, {0x80, "POLLRDBAND"}, {0x100, "POLLWRNORM"}, {0x200, "POLLWRBAND"}, {0x2000, "POLLRDHUP"},
};
static const struct flagname sa_flags[] = {
	{1, "SA_NOCLDSTOP"}, {2, "SA_NOCLDWAIT"}, {4, "SA_SIGINFO"}, {0x04000000, "SA_RESTORER"},
	{0x08000000, "SA_ONSTACK"}, {0x10000000, "SA_RESTART"}, {0x40000000, "SA_NODEFER"}, {0x80000000, "SA_RESETHAND"},
};

static const char *const signames[] = {
	NULL, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE", "SIGKILL", "SIGUSR1",
	"SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT", "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP",
	"SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR",
	"SIGSYS",
};

static const char *ioctl_name(int64_t cmd)
{
	static const struct {
		uint32_t cmd;
		const char *name;
	} t[] = {{0x5401, "TCGETS"},     {0x5402, "TCSETS"},     {0x5403, "TCSETSW"},  {0x5404, "TCSETSF"},
		 {0x540f, "TIOCGPGRP"},  {0x5410, "TIOCSPGRP"},  {0x5413, "TIOCGWINSZ"}, {0x5414, "TIOCSWINSZ"},
		 {0x541b, "FIONREAD"},   {0x5421, "FIONBIO"},    {0x5450, "FIONCLEX"}, {0x5451, "FIOCLEX"}};
	for (size_t i = 0; i < ARRAY_LEN(t); i++)
		if (cmd == t[i].cmd)
			return t[i].name;
	return NULL;
}

static const char *mode_name(struct buf *b, uint32_t mode)
{
	static const char *const types[16] = {[1] = "fifo", [2] = "character device", [4] = "directory",
					      [6] = "block device", [8] = "regular file", [10] = "symbolic link",
					      [12] = "socket"};
	const char *t = types[(mode >> 12) & 15];
	buf_reset(b);
	buf_printf(b, "%s%s0%04o", t ? t : "", t ? ", " : "", mode & 07777);
	return buf_str(b);
}

/* The name of an int argument's value, by call and position (NULL: none;
 * b: room for text). */
static const char *int_name(struct buf *b, const struct loaded *l, unsigned i, int64_t v)
{
	if (!l->s->x86)
		return NULL;
	uint16_t nr = l->r.nr;
	const char *an = nr < 20 && i < 6 ? arg_names[nr][i] : NULL;
	if (!an)
		return NULL;
	if (nr == NR_READV && i >= 3)
		return NULL;
	if (!strcmp(an, "fd"))
		return v == 0 ? "stdin" : v == 1 ? "stdout" : v == 2 ? "stderr" : v == -100 ? "AT_FDCWD" : NULL;
	if (nr == 2 && i == 1) {
		const char *acc = (v & 3) == 0 ? "O_RDONLY" : (v & 3) == 1 ? "O_WRONLY" : (v & 3) == 2 ? "O_RDWR" : "O_ACCMODE";
		struct buf t = {0};
		flags_name(&t, (uint64_t)v & ~3ull, open_flags, ARRAY_LEN(open_flags));
		buf_reset(b);
		buf_printf(b, "%s%s%s", acc, t.len ? "|" : "", buf_str(&t));
		buf_free(&t);
		return buf_str(b);
	}
	if (nr == 8 && i == 2) {
		static const char *const w[] = {"SEEK_SET", "SEEK_CUR", "SEEK_END", "SEEK_DATA", "SEEK_HOLE"};
		return v >= 0 && v < 5 ? w[v] : NULL;
	}
	if ((nr == 9 || nr == 10) && i == 2)
		return v ? flags_name(b, (uint64_t)v, prot_flags, ARRAY_LEN(prot_flags)) : "PROT_NONE";
	if (nr == 9 && i == 3)
		return flags_name(b, (uint64_t)v, map_flags, ARRAY_LEN(map_flags));
	if (nr == 13 && i == 0)
		return v > 0 && v < (int64_t)ARRAY_LEN(signames) ? signames[v] : NULL;
	if (nr == 14 && i == 0)
		return v == 0 ? "SIG_BLOCK" : v == 1 ? "SIG_UNBLOCK" : v == 2 ? "SIG_SETMASK" : NULL;
	if (nr == 16 && i == 1)
		return ioctl_name(v);
	return NULL;
}

/* A note on an int argument (NULL: none; b: room for text). */
static const char *int_note(struct buf *b, const struct loaded *l, unsigned i, int64_t v)
{
	uint16_t nr = l->r.nr;
	if (!l->s->x86 || nr >= 20 || i >= 6 || !arg_names[nr][i])
		return NULL;
	if (nr == NR_READV && i >= 3)
		return "junk: register contents (the writer's argument table overruns for readv)";
	if (!strcmp(arg_names[nr][i], "fd") && (v == -1 || v == 4294967295))
		return nr == NR_MMAP ? "-1: no file" : "-1";
	if (nr == 2 && i == 2) {
		buf_reset(b);
		buf_printf(b, "0%llo", (unsigned long long)v);
		return buf_str(b);
	}
	if (nr == 7 && i == 2)
		return v < 0 ? "infinite" : "ms";
	return NULL;
}

static void data_fields(struct fsink *out, const uint8_t *p, size_t n)
{
	f_str(out, "text", p, n);
	f_bytes(out, "hex", p, MIN(n, (size_t)HEX_BYTES));
	if (n > HEX_BYTES)
		f_put(out, &(struct field){F_NAME("hex_shown"), .kind = FK_UINT, .v.u = HEX_BYTES, .unit = "bytes"});
}

static void stat_fields(struct fsink *out, const struct ie *ie, bool be, bool stale)
{
	static const struct {
		const char *name;
		uint8_t off, size;
	} f[] = {{"st_dev", 0, 8},     {"st_ino", 8, 8},     {"st_mode", 16, 4},    {"st_nlink", 20, 8},
		 {"st_uid", 28, 4},    {"st_gid", 32, 4},    {"st_rdev", 36, 8},    {"st_size", 44, 8},
		 {"st_blksize", 52, 8}, {"st_blocks", 60, 8}, {"st_atime", 68, 8},   {"st_atime_nsec", 76, 8},
		 {"st_mtime", 84, 8},  {"st_mtime_nsec", 92, 8}, {"st_ctime", 100, 8}, {"st_ctime_nsec", 108, 8}};
	f_bool(out, "stale", stale);
	if (ie->n < 116) {
		f_bytes(out, "bytes", ie->v, ie->n);
		return;
	}
	struct buf m = {0};
	for (size_t i = 0; i < ARRAY_LEN(f); i++) {
		const uint8_t *p = ie->v + f[i].off;
		struct field fl = {.name = f[i].name, .kind = FK_INT};
		fl.v.i = f[i].size == 4 ? (int64_t)ld32(p, be) : (int64_t)ld64(p, be);
		if (!strcmp(f[i].name, "st_mode")) {
			fl.kind = FK_UINT;
			fl.value_name = mode_name(&m, (uint32_t)fl.v.i);
		}
		if (!strcmp(f[i].name, "st_size"))
			fl.unit = "bytes";
		f_put(out, &fl);
	}
	buf_free(&m);
}

/* An array of struct pollfd: fd, events and revents of each. */
static void poll_fields(struct fsink *out, const struct ie *ie, bool be)
{
	struct buf m = {0};
	f_uint(out, "nfds", ie->n / 8);
	f_arr(out, "fds");
	for (size_t k = 0; k + 8 <= ie->n; k += 8) {
		struct buf m2 = {0};
		f_obj(out, NULL);
		f_int(out, "fd", (int32_t)ld32(ie->v + k, be));
		uint16_t ev = ld16(ie->v + k + 4, be), rev = ld16(ie->v + k + 6, be);
		f_put(out, &(struct field){F_NAME("events"), .kind = FK_HEX, .v.u = ev,
					   .value_name = flags_name(&m, ev, poll_flags, ARRAY_LEN(poll_flags))});
		f_put(out, &(struct field){F_NAME("revents"), .kind = FK_HEX, .v.u = rev,
					   .value_name = rev ? flags_name(&m2, rev, poll_flags, ARRAY_LEN(poll_flags)) : NULL});
		f_end(out);
		buf_free(&m2);
	}
	f_end(out);
	buf_free(&m);
}

/* A struct sigaction as the kernel takes it (handler, flags; the mask is
 * not kept). */
static void sigaction_fields(struct fsink *out, const struct ie *ie, bool be)
{
	if (!ie->n) {
		f_null(out, "value");
		return;
	}
	if (ie->n < 24) {
		f_bytes(out, "bytes", ie->v, ie->n);
		return;
	}
	f_hex(out, "handler", ld64(ie->v, be));
	f_hex(out, "handler_again", ld64(ie->v + 8, be));
	f_bytes(out, "flags_bytes", ie->v + 16, 8);
	uint64_t saf = ld64(ie->v + 16, be);
	struct buf m = {0};
	f_put(out, &(struct field){F_NAME("sa_flags"), .kind = FK_HEX, .v.u = saf,
				   .value_name = flags_name(&m, saf, sa_flags, ARRAY_LEN(sa_flags))});
	buf_free(&m);
	if (ie->n > 24)
		f_put(out, &(struct field){F_NAME("beyond_kernel_struct"), .kind = FK_BYTES, .v.s = {ie->v + 24, ie->n - 24},
					   .meaning = "read past the kernel's structure: meaningless"});
}

static void arg_fields(struct fsink *out, const struct loaded *l, const struct ie *ie, unsigned i)
{
	bool be = l->s->be;
	uint16_t nr = l->r.nr;
	const char *an = l->s->x86 && nr < 20 && i < 6 ? arg_names[nr][i] : NULL;
	char anbuf[16];
	if (!an) {
		snprintf(anbuf, sizeof anbuf, "arg%u", i);
		an = anbuf;
	}
	f_obj(out, NULL);
	f_cstr(out, "name", an);
	static const char *const kinds[] = {NULL, "int", "data", "data_truncated", "stat", "pollfd", "sigaction",
					    "int_pointer"};
	f_cstr(out, "ie", ie->tag && ie->tag < ARRAY_LEN(kinds) ? kinds[ie->tag] : "unknown");
	if (ie->cut) {
		f_bool(out, "truncated", true);
		f_put(out, &(struct field){F_NAME("claimed"), .kind = FK_UINT, .v.u = ie->len, .unit = "bytes"});
		f_bytes(out, "bytes", ie->v, ie->n);
		f_end(out);
		return;
	}
	struct buf m = {0};
	int64_t v;
	switch (ie->tag) {
	case IE_INT:
		if (sc_ie_int(ie, be, &v)) {
			bool ptr = v > (int64_t)UINT32_MAX || v < INT32_MIN;
			f_put(out, &(struct field){F_NAME("value"), .kind = ptr ? FK_HEX : FK_INT, .v.i = v,
						   .value_name = int_name(&m, l, i, v), .meaning = int_note(&m, l, i, v)});
			f_uint(out, "size", ie->n);
		} else {
			f_bytes(out, "bytes", ie->v, ie->n);
		}
		break;
	case IE_DATA:
		f_put(out, &(struct field){F_NAME("length"), .kind = FK_UINT, .v.u = ie->n, .unit = "bytes"});
		data_fields(out, ie->v, ie->n);
		break;
	case IE_TRUNC:
		if (ie->n < 4) {
			f_bytes(out, "bytes", ie->v, ie->n);
			break;
		}
		f_put(out, &(struct field){F_NAME("real_length"), .kind = FK_UINT, .v.u = ld32(ie->v, be), .unit = "bytes"});
		f_put(out, &(struct field){F_NAME("kept"), .kind = FK_UINT, .v.u = ie->n - 4, .unit = "bytes"});
		data_fields(out, ie->v + 4, ie->n - 4);
		break;
	case IE_STAT: stat_fields(out, ie, be, is_error(l->r.ret)); break;
	case IE_POLL: poll_fields(out, ie, be); break;
	case IE_SIGACT: sigaction_fields(out, ie, be); break;
	case IE_INTPTR:
		if (ie->n >= 16) {
			f_hex(out, "pointer", ld64(ie->v, be));
			f_int(out, "value", (int64_t)ld64(ie->v + 8, be));
		} else {
			f_bytes(out, "bytes", ie->v, ie->n);
		}
		break;
	default:
		f_uint(out, "tag", ie->tag);
		f_bytes(out, "bytes", ie->v, ie->n);
		break;
	}
	buf_free(&m);
	f_end(out);
}

void sc_utc_date(char *out, size_t n, int64_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (!gmtime_r(&tt, &tm) || !strftime(out, n, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(out, n, "%lld s since the epoch", (long long)t);
}

void sc_fields(void *st, const struct event *e, struct fsink *out)
{
	struct sc *sc = st;
	struct loaded l;
	if (!sc_load(sc, e, &l)) {
		f_cstr(out, "error", "record not readable");
		return;
	}
	const struct stream *s = l.s;
	const struct rec *r = &l.r;
	char tmp[32];
	f_uint(out, "stream", l.si + 1);
	f_unit(out, "record_length", l.len, "bytes");
	f_put(out, &(struct field){F_NAME("nr"), .kind = FK_UINT, .v.u = r->nr, .meaning = sc_name(s, r->nr, tmp, sizeof tmp)});
	f_cstr(out, "syscall", sc_name(s, r->nr, tmp, sizeof tmp));
	f_hex(out, "flags", r->flags);
	if (r->literal)
		f_cstr(out, "layout", "spec (tag-1 segment)");
	struct buf m = {0};
	struct field ret = {F_NAME("return"), .kind = FK_INT, .v.i = r->ret};
	if (is_error(r->ret)) {
		ret.value_name = errno_name((int)-r->ret);
	} else if (sc_addr_result(s, r->nr)) {
		buf_printf(&m, "0x%llx", (unsigned long long)r->ret);
		ret.meaning = m.p;
	} else if (!r->has_ret) {
		ret.meaning = "not recorded: 0";
	}
	f_put(out, &ret);
	f_put(out, &(struct field){F_NAME("tid"), .kind = FK_INT, .v.i = r->has_tid ? r->tid : s->tid,
				   .meaning = r->has_tid ? NULL : "the stream header's thread"});
	if (r->has_ts) {
		f_put(out, &(struct field){F_NAME("entry_time"), .kind = FK_INT, .v.i = r->ts, .unit = "ns"});
		int64_t rel = ts_sub(r->ts, s->ref);
		f_put(out, &(struct field){F_NAME("since_start"), .kind = FK_INT, .v.i = rel, .unit = "ns",
					   .meaning = s->ref_from_record ? "since the first record (no mono_ref_ns)" : NULL});
		if (!s->ref_from_record) {
			char d[64];
			sc_utc_date(d, sizeof d, sat_i64((__int128)s->epoch + rel / 1000000000));
			f_put(out, &(struct field){F_NAME("wall_clock"), .kind = FK_STR, .v.s = {d, strlen(d)},
						   .meaning = "to about a second: the header has whole seconds"});
		}
	} else {
		f_null(out, "entry_time");
	}
	if (e->dur != TTV_NODUR)
		f_unit(out, "duration", e->dur, "ns");
	else
		f_null(out, "duration");
	if (r->has_dur) {
		uint32_t d = r->dur_raw;
		if (r->literal) {
			f_put(out, &(struct field){F_NAME("duration_raw"), .kind = FK_UINT, .v.u = d & 0x7fffffff,
						   .unit = d >> 31 ? "ms" : "ns", .meaning = "the spec's ns/ms encoding"});
		} else if (l.multi) {
			f_put(out, &(struct field){F_NAME("duration_raw"), .kind = FK_UINT, .v.u = d & 0x3fffffff,
						   .unit = unit_name[d >> 30],
						   .meaning = d == 0xffffffff ? "multi-unit encoding: overflow" : "multi-unit encoding"});
		} else {
			float f;
			memcpy(&f, &d, 4);
			f_put(out, &(struct field){F_NAME("duration_raw"), .kind = FK_FLOAT, .v.d = f, .unit = "ns",
						   .meaning = "f32"});
		}
	}
	if (r->has_err)
		f_put(out, &(struct field){F_NAME("errno"), .kind = FK_INT, .v.i = r->err,
					   .value_name = r->err ? errno_name(r->err) : NULL,
					   .meaning = r->err ? NULL : "libc's errno, not set by raw syscalls"});
	if (r->cut)
		f_bool(out, "record_truncated", true);
	const uint8_t *path;
	size_t npath;
	if (sc_first_path(s, r, l.v, l.len, &path, &npath))
		f_str(out, "path", path, npath);
	f_arr(out, "args");
	size_t o = r->args;
	struct ie ie;
	unsigned i = 0;
	while (ie_next(l.v, l.len, &o, s->be, &ie))
		arg_fields(out, &l, &ie, i++);
	f_end(out);
	buf_free(&m);
}
