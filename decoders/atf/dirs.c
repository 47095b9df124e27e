/* atf/dirs.c: paths and the directories of a session (pid_N, thread_N, bundles) */
#include "decoders/atf/atf.h"

char *atf_path_join(const char *a, const char *b)
{
	struct buf p = {0};
	buf_printf(&p, "%s/%s", a, b);
	return p.p;
}

bool atf_is_file(const char *p)
{
	enum path_kind k = path_kind(p);
	return k != PATH_NONE && k != PATH_DIR;
}

const char *atf_base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* "thread_12" with prefix "thread_" -> 12.  Digits only, at most 32 bits. */
bool atf_numbered(const char *name, const char *prefix, uint32_t *num)
{
	size_t k = strlen(prefix);
	if (strncmp(name, prefix, k) || !name[k])
		return false;
	uint64_t v = 0;
	for (const char *s = name + k; *s; s++) {
		if (*s < '0' || *s > '9' || (v = v * 10 + (uint64_t)(*s - '0')) > UINT32_MAX)
			return false;
	}
	*num = (uint32_t)v;
	return true;
}

int atf_by_num(const void *a, const void *b)
{
	const struct dent *x = a, *y = b;
	return x->num < y->num ? -1 : x->num > y->num;
}

/* The subdirectories of dir named PREFIX<number>, in number order. */
size_t atf_list_numbered(const char *dir, const char *prefix, struct dent **out)
{
	*out = NULL;
	struct dir_entry *e;
	size_t ne = dir_list(dir, &e), n = 0, cap = 0;
	for (size_t i = 0; i < ne; i++) {
		uint32_t num;
		if (e[i].kind != PATH_DIR || !atf_numbered(e[i].name, prefix, &num))
			continue;
		xgrow(out, &cap, n + 1, sizeof **out);
		(*out)[n++] = (struct dent){num, atf_path_join(dir, e[i].name)};
	}
	dir_free(e, ne);
	if (n)
		qsort(*out, n, sizeof **out, atf_by_num);
	return n;
}

void atf_free_dents(struct dent *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(d[i].path);
	free(d);
}

char *atf_thread_file(const char *dir, const char *name)
{
	char *p = atf_path_join(dir, name);
	if (atf_is_file(p))
		return p;
	struct buf gz = {0};
	buf_printf(&gz, "%s.gz", p);
	free(p);
	if (atf_is_file(gz.p))
		return gz.p;
	buf_free(&gz);
	return NULL;
}

bool atf_same_name(const char *base, const char *name)
{
	size_t n = strlen(name);
	return !strncmp(base, name, n) && (!base[n] || !strcmp(base + n, ".gz"));
}

/* A thread directory: thread_N holding index.atf or detail.atf. */
bool atf_thread_dir_has_files(const char *dir)
{
	char *a = atf_thread_file(dir, "index.atf"), *b = a ? NULL : atf_thread_file(dir, "detail.atf");
	bool r = a || b;
	free(a);
	free(b);
	return r;
}

bool atf_is_pid_dir(const char *dir)
{
	struct dent *d;
	size_t n = atf_list_numbered(dir, "thread_", &d);
	bool r = false;
	for (size_t i = 0; i < n && !r; i++)
		r = atf_thread_dir_has_files(d[i].path);
	atf_free_dents(d, n);
	return r;
}

bool atf_is_session_dir(const char *dir)
{
	struct dent *d;
	size_t n = atf_list_numbered(dir, "pid_", &d);
	bool r = false;
	for (size_t i = 0; i < n && !r; i++)
		r = atf_is_pid_dir(d[i].path);
	atf_free_dents(d, n);
	return r;
}

/* pid directories at most `depth` levels below dir (a bundle's trace tree). */
void atf_find_pid_dirs(const char *dir, int depth, struct dent **out, size_t *n, size_t *cap)
{
	if (depth < 0 || *n >= 256)
		return;
	struct dir_entry *e;
	size_t ne = dir_list(dir, &e);
	char **subs = NULL;
	size_t nsub = 0, capsub = 0;
	for (size_t i = 0; i < ne; i++) {
		if (e[i].name[0] == '.' || e[i].kind != PATH_DIR)
			continue;
		xgrow(&subs, &capsub, nsub + 1, sizeof *subs);
		subs[nsub++] = atf_path_join(dir, e[i].name);
	}
	dir_free(e, ne);
	for (size_t i = 0; i < nsub; i++) {
		uint32_t pid;
		if (atf_numbered(atf_base_name(subs[i]), "pid_", &pid) && atf_is_pid_dir(subs[i])) {
			xgrow(out, cap, *n + 1, sizeof **out);
			(*out)[(*n)++] = (struct dent){pid, xstrdup(subs[i])};
		} else {
			atf_find_pid_dirs(subs[i], depth - 1, out, n, cap);
		}
		free(subs[i]);
	}
	free(subs);
}
