#include "src/worker.h"

#include <pthread.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static void (*job)(void *);
static void *job_arg;
static bool busy, started;
static __thread bool on_worker;

unsigned worker_index(void) { return on_worker; }

static void *loop(void *unused)
{
	(void)unused;
	on_worker = true;
	pthread_mutex_lock(&mu);
	for (;;) {
		while (!job)
			pthread_cond_wait(&cv, &mu);
		void (*fn)(void *) = job;
		pthread_mutex_unlock(&mu);
		fn(job_arg);
		pthread_mutex_lock(&mu);
		job = NULL;
		busy = false;
		pthread_cond_broadcast(&cv);
	}
	return NULL;
}

bool worker_start(void (*fn)(void *), void *arg)
{
	pthread_mutex_lock(&mu);
	if (!started) {
		pthread_t th;
		pthread_attr_t at;
		pthread_attr_init(&at);
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		started = pthread_create(&th, &at, loop, NULL) == 0;
		pthread_attr_destroy(&at);
	}
	bool ok = started && !busy;
	if (ok) {
		job = fn;
		job_arg = arg;
		busy = true;
		pthread_cond_broadcast(&cv);
	}
	pthread_mutex_unlock(&mu);
	return ok;
}

void worker_wait(void)
{
	pthread_mutex_lock(&mu);
	while (busy)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
}
