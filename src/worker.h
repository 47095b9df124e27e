/* A second thread for long scans: run one function on it while the calling
 * thread does the other half of the work, then wait for it.  The thread is
 * started on first use and lives as long as the process (its thread-local
 * scratch buffers stay reachable). */
#ifndef TTV_WORKER_H
#define TTV_WORKER_H

#include <stdbool.h>

/* Start fn(arg) on the worker; false when no thread could be started
 * (the caller then does the work itself). */
bool worker_start(void (*fn)(void *), void *arg);
/* Wait until the function given to worker_start() has returned. */
void worker_wait(void);
/* 1 on the worker thread, 0 on any other: picks a per-thread cache. */
unsigned worker_index(void);

#endif
