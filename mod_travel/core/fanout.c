#include "fanout.h"

#include <apr_allocator.h>
#include <apr_thread_proc.h>

apr_pool_t *trv_call_pool(apr_pool_t *parent)
{
    apr_allocator_t *alloc;
    apr_pool_t *p;
    if (apr_allocator_create(&alloc) != APR_SUCCESS) {
        return NULL;
    }
    if (apr_pool_create_ex(&p, parent, NULL, alloc) != APR_SUCCESS) {
        apr_allocator_destroy(alloc);
        return NULL;
    }
    apr_allocator_owner_set(alloc, p);
    return p;
}

typedef struct job {
    void (*fn)(void *);
    void *baton;
} job;

static void *APR_THREAD_FUNC run(apr_thread_t *t, void *data)
{
    job *j = data;
    j->fn(j->baton);
    apr_thread_exit(t, APR_SUCCESS);
    return NULL;
}

void trv_fanout(apr_pool_t *p, int n, void (*fn)(void *baton), void **batons)
{
    apr_thread_t **threads = apr_pcalloc(p, sizeof(apr_thread_t *) * (apr_size_t)(n + 1));
    job *jobs = apr_pcalloc(p, sizeof(job) * (apr_size_t)(n + 1));
    apr_status_t rv;
    int i;
    for (i = 1; i < n; i++) {
        /* Each thread's own pool: a child of a fresh call pool, so no
         * allocator is shared with the request thread. */
        apr_pool_t *tp = trv_call_pool(p);
        jobs[i].fn = fn;
        jobs[i].baton = batons[i];
        if (!tp || apr_thread_create(&threads[i], NULL, run, &jobs[i], tp) != APR_SUCCESS) {
            threads[i] = NULL;
            fn(batons[i]);
        }
    }
    if (n > 0) {
        fn(batons[0]);
    }
    for (i = 1; i < n; i++) {
        if (threads[i]) {
            apr_thread_join(&rv, threads[i]);
        }
    }
}
