/* atf/session.c: the decoder: a session and its threads, opening what users have, following, closing */
#include "decoders/atf/atf.h"

/* ---- session setup -------------------------------------------------------- */

static struct session *session_new(struct source *src)
{
	struct session *ss = xcalloc(1, sizeof *ss);
	ss->tag = T_SESSION;
	ss->meta_tag = T_META;
	ss->src = src;
	ss->m = dec_source_model(src);
	ss->t_ret = atf_make_type(ss, "RETURN", ROLE_END, 0);
	ss->t_call = atf_make_type(ss, "CALL", ROLE_BEGIN, ss->t_ret);
	ss->t_exc = atf_make_type(ss, "EXCEPTION", ROLE_INSTANT, 0);
	ss->t_detail = atf_make_type(ss, "DETAIL", ROLE_INSTANT, 0);
	ss->t_kind_other = atf_make_type(ss, "KIND(other)", ROLE_INSTANT, 0);
	dec_set_source_state(src, ss);
	return ss;
}

static size_t pid_add(struct session *ss, uint32_t pid, bool known, const char *dir)
{
	xgrow(&ss->pids, &ss->cappids, ss->npids + 1, sizeof *ss->pids);
	ss->pids[ss->npids] = (struct pidinfo){.pid = pid, .known = known, .dir = dir ? xstrdup(dir) : NULL};
	return ss->npids++;
}

struct input *atf_add_input(struct session *ss, const char *path, void *dstate)
{
	struct input *in = dec_add_input(ss->src, path);
	if (in) {
		in->dec = &atf_decoder;
		in->dstate = dstate;
	}
	return in;
}

void atf_lane_name(struct thread *th, struct buf *b)
{
	struct session *ss = th->ss;
	const struct pidinfo *pi = &ss->pids[th->pidx];
	buf_reset(b);
	if (MAX(ss->npids, ss->pids_expected) > 1 && pi->known)
		buf_printf(b, "pid %u ", pi->pid);
	buf_printf(b, "thread %u", th->slot);
	if (th->name_tid)
		buf_printf(b, " (tid %u)", th->name_tid);
}

static struct thread *thread_new(struct session *ss, size_t pidx, uint32_t slot)
{
	struct thread *th = xcalloc(1, sizeof *th);
	th->ss = ss;
	th->pidx = pidx;
	th->slot = slot;
	th->ix = (struct idx){.tag = T_INDEX, .th = th, .crc = 0};
	th->dt = (struct det){.tag = T_DETAIL, .th = th};
	atf_lane_name(th, &ss->tmp);
	const struct pidinfo *pi = &ss->pids[pidx];
	th->lane = dec_lane_sid(ss->src, (uint64_t)(pi->known ? pi->pid : 0) << 32 | slot,
				atf_intern(ss, ss->tmp.p, ss->tmp.len));
	xgrow(&ss->th, &ss->capth, ss->nth + 1, sizeof *ss->th);
	ss->th[ss->nth++] = th;
	return th;
}

/* Once its inputs are known: the index becomes a sequence of the model. */
static void thread_ready(struct thread *th)
{
	if (th->ix.in)
		th->seq = dec_add_seq(th->ix.in, &atf_seq_ops, th);
}

/* ---- opening what users have ---------------------------------------------- */

/* A thread directory and its files, looked for once (a session of 256
 * processes has 1,024 of them: each stat costs). */
struct thread_dir {
	uint32_t slot;
	char *dir, *ip, *dp; /* index.atf and detail.atf (or .gz), NULL when not there */
};

static bool thread_dir_look(uint32_t slot, char *dir, struct thread_dir *t)
{
	*t = (struct thread_dir){slot, dir, atf_thread_file(dir, "index.atf"), atf_thread_file(dir, "detail.atf")};
	return t->ip || t->dp;
}

static void thread_dir_free(struct thread_dir *t)
{
	free(t->ip);
	free(t->dp);
}

/* Add the thread's files that exist (ip, dp) and are not read yet. */
static void thread_add_files(struct thread *th, const char *ip, const char *dp)
{
	struct session *ss = th->ss;
	if (!th->ix.in && !th->settled && ip && (th->ix.in = atf_add_input(ss, ip, &th->ix))) {
		th->ix.final = false;
		thread_ready(th);
	}
	if (!th->dt.in && !th->settled && dp && (th->dt.in = atf_add_input(ss, dp, &th->dt)))
		th->dt.final = false;
}

/* Following a live session, the writer makes detail.atf at the first
 * detail record. */
static void thread_files(struct thread *th)
{
	struct thread_dir t;
	thread_dir_look(th->slot, th->dir, &t);
	thread_add_files(th, t.ip, t.dp);
	thread_dir_free(&t);
}

static void open_thread(struct session *ss, size_t pidx, const struct thread_dir *t)
{
	struct thread *th = thread_new(ss, pidx, t->slot);
	th->dir = xstrdup(t->dir);
	th->ix.final = th->dt.final = true; /* until a file is there */
	thread_add_files(th, t->ip, t->dp);
}

/* A pid directory's threads that have files, listed once. */
struct pid_threads {
	struct dent *d; /* the thread_N directories */
	struct thread_dir *t;
	size_t nd, n;
};

static void pid_threads_find(const char *pdir, struct pid_threads *pt)
{
	pt->nd = atf_list_numbered(pdir, "thread_", &pt->d);
	pt->t = xcalloc(pt->nd ? pt->nd : 1, sizeof *pt->t);
	pt->n = 0;
	for (size_t i = 0; i < pt->nd; i++)
		if (thread_dir_look(pt->d[i].num, pt->d[i].path, &pt->t[pt->n]))
			pt->n++;
}

static void pid_threads_free(struct pid_threads *pt)
{
	for (size_t i = 0; i < pt->n; i++)
		thread_dir_free(&pt->t[i]);
	free(pt->t);
	atf_free_dents(pt->d, pt->nd);
}

static void open_pid_threads(struct session *ss, const char *pdir, const struct pid_threads *pt)
{
	uint32_t pid = 0;
	bool known = atf_numbered(atf_base_name(pdir), "pid_", &pid);
	size_t pidx = pid_add(ss, pid, known, pdir);
	atf_load_pid_manifest(ss, pidx, pdir);
	for (size_t i = 0; i < pt->n; i++)
		open_thread(ss, pidx, &pt->t[i]);
}

static void open_pid(struct session *ss, const char *pdir)
{
	struct pid_threads pt;
	pid_threads_find(pdir, &pt);
	open_pid_threads(ss, pdir, &pt);
	pid_threads_free(&pt);
}

/* The pid directories of d that have threads: every one looked into once,
 * all before the first is opened (the lanes say "pid N" when there are several). */
static void open_pids(struct session *ss, struct dent *d, size_t n)
{
	struct pid_threads *pt = xcalloc(n ? n : 1, sizeof *pt);
	for (size_t i = 0; i < n; i++) {
		pid_threads_find(d[i].path, &pt[i]);
		ss->pids_expected += pt[i].n > 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (pt[i].n)
			open_pid_threads(ss, d[i].path, &pt[i]);
		pid_threads_free(&pt[i]);
	}
	free(pt);
}

static void open_session_dir(struct session *ss, const char *dir)
{
	struct dent *d;
	size_t n = atf_list_numbered(dir, "pid_", &d);
	open_pids(ss, d, n);
	atf_free_dents(d, n);
}

/* Every pid directory a few levels below dir. */
static void open_found(struct session *ss, const char *dir)
{
	struct dent *d = NULL;
	size_t n = 0, cap = 0;
	atf_find_pid_dirs(dir, SEARCH_DEPTH, &d, &n, &cap);
	if (n)
		qsort(d, n, sizeof *d, atf_by_num);
	open_pids(ss, d, n);
	atf_free_dents(d, n);
}

/* A relative path that stays below its directory. */
static bool safe_relative(const char *p)
{
	if (!*p || *p == '/')
		return false;
	for (const char *s = p; *s;) {
		const char *e = strchr(s, '/');
		size_t k = e ? (size_t)(e - s) : strlen(s);
		if (k == 2 && s[0] == '.' && s[1] == '.')
			return false;
		s += k + (e != NULL);
	}
	return true;
}

static void open_bundle(struct session *ss, const char *dir)
{
	ss->bundle = true;
	ss->layout = "bundle";
	char *mpath = atf_path_join(dir, "manifest.json");
	struct json j;
	struct input *min;
	char *target = NULL;
	if (atf_load_json(ss, mpath, &j, &min)) {
		uint32_t root = json_root(&j);
		ss->bundle_manifest = xstrdup(mpath);
		ss->trace_session = atf_json_dup(&j, json_get(&j, root, "trace_session"));
		if (!ss->trace_session)
			dec_damage(min, 0, "bundle manifest has no \"trace_session\" string: looking for pid_N directories");
		else if (!safe_relative(ss->trace_session) || memchr(ss->trace_session, 0, strlen(ss->trace_session)))
			dec_damage(min, 0, "\"trace_session\" is not a relative path inside the bundle: ignored");
		else
			target = atf_path_join(dir, ss->trace_session);
		json_free(&j);
	}
	free(mpath);
	char *spath = atf_path_join(dir, "session.json");
	struct input *sin;
	if (atf_load_json(ss, spath, &j, &sin)) {
		ss->bundle_status = atf_json_dup(&j, json_get(&j, json_root(&j), "status"));
		json_free(&j);
	}
	free(spath);
	if (target && atf_is_pid_dir(target)) {
		open_pid(ss, target);
	} else if (target && atf_is_session_dir(target)) {
		open_session_dir(ss, target);
	} else {
		if (target && min)
			dec_damage(min, 0, "\"trace_session\" names no ATF session directory: looking for pid_N directories");
		open_found(ss, dir);
	}
	free(target);
}

enum shape { S_NONE, S_PID, S_SESSION, S_THREAD, S_BUNDLE, S_TREE };

static enum shape classify(const char *dir)
{
	if (atf_is_pid_dir(dir))
		return S_PID;
	if (atf_is_session_dir(dir))
		return S_SESSION;
	uint32_t n;
	if (atf_numbered(atf_base_name(dir), "thread_", &n) && atf_thread_dir_has_files(dir))
		return S_THREAD;
	struct dent *d = NULL;
	size_t k = 0, cap = 0;
	atf_find_pid_dirs(dir, SEARCH_DEPTH, &d, &k, &cap);
	atf_free_dents(d, k);
	if (!k)
		return S_NONE;
	char *m = atf_path_join(dir, "manifest.json");
	bool has = atf_is_file(m);
	free(m);
	return has ? S_BUNDLE : S_TREE;
	return S_NONE;
}

static int atf_probe_dir(const char *dir)
{
	switch (classify(dir)) {
	case S_PID:
	case S_SESSION: return PROBE_MAGIC;
	case S_THREAD:
	case S_BUNDLE: return PROBE_GOOD;
	case S_TREE: return PROBE_WEAK;
	default: return PROBE_NO;
	}
}

static bool atf_open_dir(struct source *src, const char *dir)
{
	struct session *ss = session_new(src);
	switch (classify(dir)) {
	case S_PID:
		ss->layout = "pid directory";
		open_pid(ss, dir);
		break;
	case S_SESSION:
		ss->layout = "session directory";
		open_session_dir(ss, dir);
		break;
	case S_THREAD: {
		ss->layout = "thread directory";
		char *pdir = path_dir(dir);
		uint32_t slot = 0;
		atf_numbered(atf_base_name(dir), "thread_", &slot);
		uint32_t pid = 0;
		bool known = atf_numbered(atf_base_name(pdir), "pid_", &pid);
		size_t pidx = pid_add(ss, pid, known, pdir);
		atf_load_pid_manifest(ss, pidx, pdir);
		struct thread_dir t;
		thread_dir_look(slot, (char *)dir, &t);
		open_thread(ss, pidx, &t);
		thread_dir_free(&t);
		free(pdir);
		break;
	}
	case S_BUNDLE: open_bundle(ss, dir); break;
	case S_TREE:
		ss->layout = "directory of sessions";
		open_found(ss, dir);
		break;
	default: break;
	}
	return ss->nth > 0;
}

/* ---- following a session being written ------------------------------------ */

static struct thread *thread_find(struct session *ss, size_t pidx, uint32_t slot)
{
	for (size_t i = 0; i < ss->nth; i++)
		if (ss->th[i]->pidx == pidx && ss->th[i]->slot == slot)
			return ss->th[i];
	return NULL;
}

/* The manifest is written at stop (never after a crash).  Once it parses,
 * its symbols name the calls: names are looked up lazily, so forgetting
 * the ones made so far renames every event of the index sequences. */
static void manifest_late(struct session *ss, size_t pidx)
{
	struct pidinfo *pi = &ss->pids[pidx];
	if (pi->manifest != M_MISSING || !pi->dir)
		return;
	char *path = atf_path_join(pi->dir, "manifest.json");
	if (!pi->late && atf_is_file(path))
		pi->late = atf_add_input(ss, path, &ss->meta_tag);
	struct input *in = pi->late;
	if (!in || !in->size || in->size > JSON_MAX_BYTES || in->size == pi->late_size) {
		free(path);
		return;
	}
	struct json j;
	/* the loader keeps its bytes current; a half-written one waits */
	if (json_parse(&j, in->map, in->size) && json_type(&j, json_root(&j)) == JSON_OBJ) {
		atf_pid_manifest(ss, pi, path, in, &j);
		hmap_clear(&ss->names);
		memset(ss->nc_used, 0, sizeof ss->nc_used);
		model_seq_changed(ss->m);
		dec_notice(ss->src, "%s: the manifest was written: %llu symbols name the calls", pi->dir,
			   (unsigned long long)pi->nsymbols);
	} else {
		pi->late_size = in->size; /* half written: parse again when it has grown */
	}
	json_free(&j);
	free(path);
}

static bool pid_known(const struct session *ss, const char *dir)
{
	for (size_t p = 0; p < ss->npids; p++)
		if (ss->pids[p].dir && !strcmp(ss->pids[p].dir, dir))
			return true;
	return false;
}

/* A session directory: a process started after it was opened (a forked
 * child) has a pid_N directory of its own once its first thread writes. */
static void new_pids(struct session *ss, const char *dir)
{
	struct dent *d;
	size_t n = atf_list_numbered(dir, "pid_", &d), before = ss->npids;
	for (size_t i = 0; i < n; i++)
		if (!pid_known(ss, d[i].path) && atf_is_pid_dir(d[i].path)) {
			open_pid(ss, d[i].path);
			ss->pids_expected++;
			dec_notice(ss->src, "%s: a new process: %s", dir, atf_base_name(d[i].path));
		}
	atf_free_dents(d, n);
	if (before == 1 && ss->npids > 1) /* lanes now say which process */
		for (size_t i = 0; i < ss->nth; i++) {
			struct thread *th = ss->th[i];
			atf_lane_name(th, &ss->tmp);
			model_lane_rename(ss->m, th->lane, atf_intern(ss, ss->tmp.p, ss->tmp.len));
		}
}

/* New pid_N and thread_N directories, files made late, the manifest. */
static void atf_rescan(struct source *src)
{
	struct session *ss = dec_source_state(src);
	if (!ss || ss->tag != T_SESSION)
		return;
	if (ss->layout && !strcmp(ss->layout, "session directory"))
		new_pids(ss, dec_source_path(src));
	/* a thread directory or a file opened by itself: no other threads */
	bool whole = ss->layout && strcmp(ss->layout, "thread directory") && strcmp(ss->layout, "single file");
	for (size_t p = 0; p < ss->npids; p++) {
		manifest_late(ss, p);
		if (!whole || !ss->pids[p].dir)
			continue;
		struct dent *d;
		size_t n = atf_list_numbered(ss->pids[p].dir, "thread_", &d);
		for (size_t i = 0; i < n; i++) {
			struct thread_dir t = {0};
			if (!thread_find(ss, p, d[i].num) && thread_dir_look(d[i].num, d[i].path, &t))
				open_thread(ss, p, &t);
			thread_dir_free(&t);
		}
		atf_free_dents(d, n);
	}
	for (size_t i = 0; i < ss->nth; i++)
		if (ss->th[i]->dir)
			thread_files(ss->th[i]);
}

static int atf_probe(const uint8_t *p, size_t n, bool final)
{
	if (n < 4)
		return final ? PROBE_NO : PROBE_MORE;
	return !memcmp(p, "ATI2", 4) || !memcmp(p, "ATD2", 4) ? PROBE_MAGIC : PROBE_NO;
}

/* A single file: index.atf (its detail.atf beside it is picked up, and the
 * session manifest two levels up), or a detail.atf (with its index.atf). */
static void *atf_open(struct input *in)
{
	struct source *src = dec_source(in);
	struct session *ss = dec_source_state(src);
	if (!ss || ss->tag != T_SESSION)
		ss = session_new(src);
	if (!ss->layout)
		ss->layout = "single file";
	bool detail = in->size >= 4 && !memcmp(in->map, "ATD2", 4);
	const char *base = atf_base_name(in->path);
	char *dir = in->is_stdin ? NULL : path_dir(in->path);
	uint32_t slot = 0;
	bool named = dir && atf_numbered(atf_base_name(dir), "thread_", &slot);
	if (!named && in->size >= 16)
		slot = ld32le(in->map + 12);
	char *pdir = named ? path_dir(dir) : NULL;
	uint32_t pid = 0;
	bool known = pdir && atf_numbered(atf_base_name(pdir), "pid_", &pid);
	size_t pidx = pid_add(ss, pid, known, pdir);
	if (named)
		atf_load_pid_manifest(ss, pidx, pdir);
	struct thread *th = thread_new(ss, pidx, slot);
	th->alone = !dir || !atf_same_name(base, detail ? "detail.atf" : "index.atf");
	if (!th->alone)
		th->dir = xstrdup(dir); /* following: its sibling may come later */
	void *st = detail ? (void *)&th->dt : (void *)&th->ix;
	*(detail ? &th->dt.in : &th->ix.in) = in;
	/* its sibling, when it has its usual name beside it */
	const char *sibling = detail ? "index.atf" : "detail.atf";
	char *sp = !th->alone ? atf_thread_file(dir, sibling) : NULL;
	if (sp) {
		if (detail)
			th->ix.in = atf_add_input(ss, sp, &th->ix);
		else
			th->dt.in = atf_add_input(ss, sp, &th->dt);
	}
	free(sp);
	if (!th->ix.in)
		th->ix.final = true;
	if (!th->dt.in)
		th->dt.final = true;
	thread_ready(th);
	free(dir);
	free(pdir);
	return st;
}

static size_t atf_feed(void *st, const uint8_t *p, size_t n, uint64_t off, bool final)
{
	switch (*(enum tag *)st) {
	case T_INDEX: return atf_idx_feed(st, p, n, off, final);
	case T_DETAIL: return atf_det_feed(st, p, n, off, final);
	default: return n; /* JSON: parsed when opened */
	}
}

/* ---- closing -------------------------------------------------------------- */

/* What an index's time order and pairing hold (not the idx itself). */
static void idx_free(struct idx *x)
{
	free(x->ch);
	for (int k = 0; k < PERM_CACHE; k++)
		free(x->cache[k].p);
	free(x->stk);
	hmap_free(&x->far);
}

static void thread_free(struct thread *th)
{
	idx_free(&th->ix);
	free(th->dt.offs);
	free(th->dir);
	free(th);
}

/* A file of the session was truncated (following): read it again from
 * scratch.  The index's sequence counts its records, so it shrinks to 0;
 * link checks are made again when both files are read. */
static void atf_restart(void *st)
{
	enum tag tag = *(enum tag *)st;
	if (tag == T_INDEX) {
		struct idx *x = st;
		struct thread *th = x->th;
		struct input *in = x->in;
		model_lane_uncount(th->ss->m, th->lane, x->n); /* counted again as they are read */
		idx_free(x);
		*x = (struct idx){.tag = T_INDEX, .th = th, .in = in};
		th->settled = false;
		model_seq_changed(th->ss->m);
	} else if (tag == T_DETAIL) {
		struct det *d = st;
		struct thread *th = d->th;
		struct input *in = d->in;
		free(d->offs);
		*d = (struct det){.tag = T_DETAIL, .th = th, .in = in};
		th->settled = false;
	}
}

static void atf_close(void *st)
{
	if (!st || *(enum tag *)st != T_SESSION)
		return; /* files' states belong to the session */
	struct session *ss = st;
	for (size_t i = 0; i < ss->nth; i++)
		thread_free(ss->th[i]);
	free(ss->th);
	for (size_t i = 0; i < ss->npids; i++) {
		struct pidinfo *pi = &ss->pids[i];
		free(pi->dir);
		free(pi->manifest_path);
		free(pi->manifest_err);
		free(pi->format_version);
		free(pi->listed);
	}
	free(ss->pids);
	hmap_free(&ss->sym);
	hmap_free(&ss->mod);
	hmap_free(&ss->names);
	hmap_free(&ss->kinds);
	free(ss->bundle_manifest);
	free(ss->trace_session);
	free(ss->bundle_status);
	buf_free(&ss->tmp);
	free(ss);
}

const struct decoder atf_decoder = {
	.name = "atf",
	.title = "ATF v2 session (ADA Trace Format)",
	.probe = atf_probe,
	.open = atf_open,
	.feed = atf_feed,
	.probe_dir = atf_probe_dir,
	.open_dir = atf_open_dir,
	.rescan = atf_rescan,
	.restart = atf_restart,
	.fields = atf_fields,
	.summary = atf_summary,
	.linked = atf_linked,
	.record_fields = atf_record_fields,
	.record_back = atf_record_back,
	.save = atf_save,
	.restore = atf_restore,
	.info = atf_info,
	.close = atf_close,
};
