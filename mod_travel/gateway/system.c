/* The gateway's own domain, "system": the worker probe job. */
#include "system.h"
#include "probe.h"

static const trv_job_def jobs[] = {
    {&trv_probe_job, trv_probe_run},
    {NULL, NULL},
};

const trv_domain trv_system_domain = {"system", NULL, jobs, NULL, NULL, NULL};
