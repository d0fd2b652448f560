/* The gateway's own domain, "system": the service's own endpoints (health,
 * the OpenAPI file) and the worker probe job. */
#include "system.h"
#include "probe.h"
#include "service.h"

static const trv_job_def jobs[] = {
    {&trv_probe_job, trv_probe_run},
    {NULL, NULL},
};

const trv_domain trv_system_domain = {"system", trv_service_routes, jobs, NULL, NULL, NULL};
