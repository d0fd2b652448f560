/* flight.booking.render: writes the two renderings of a booking's revision
 * (the list's and GET's, flight_booking_docs), so that reads only read.
 * The database queues one job per revision in the transaction that makes
 * it (sql/045). A job whose revision has been overtaken leaves the work to
 * the newer revision's job; a booking shown as EXPIRED before the expiry
 * job stores it keeps no rendering (readers render it), and the expiry's
 * own change queues the next. Having kept them, it builds the owner's usual
 * list page again (sql/047), which the change made stale. */
#include "jobs.h"
#include "render.h"
#include "booking_store.h"
#include "core/json.h"

#include <apr_strings.h>
#include <stdlib.h>

static int overtaken(const trv_job *job, const trv_fbooking *b)
{
    json_t *rev = json_object_get(job->payload, "revision");
    return json_is_integer(rev) && b->revision
        && strtoll(b->revision, NULL, 10) > (long long)json_integer_value(rev);
}

void trv_fjob_render_run(trv_env *env, apr_pool_t *p, const trv_job *job,
                         trv_job_result *res)
{
    const char *id;
    trv_fbooking *b = NULL;
    json_t *docs;
    trv_dbc *c;

    if (!trv_job_open(env, p, job, &id, &c, res)) {
        return;
    }
    if (trv_fbooking_get_any(c, p, id, &b) != APR_SUCCESS) {
        res->outcome = TRV_JOB_RETRY;
        res->error = apr_psprintf(p, "reading booking %s: %s", id, c->error);
    }
    else if (b && b->revision && !b->past_expiry && !overtaken(job, b)) {
        docs = trv_json_bind(p, json_pack("[{s:s,s:s,s:s,s:s}]", "booking_id", b->id,
            "revision", b->revision,
            "list_doc", trv_frender_booking_text(p, b, TRV_RENDER_LIST),
            "doc", trv_frender_booking_text(p, b, TRV_RENDER_FULL)));
        if (trv_fbooking_keep_docs(c, p, docs) != APR_SUCCESS) {
            res->outcome = TRV_JOB_RETRY;
            res->error = apr_psprintf(p, "keeping the renderings of %s: %s", id, c->error);
        }
        else if (trv_fbooking_keep_head(c, p, b->org_id, b->user_id) != APR_SUCCESS) {
            res->outcome = TRV_JOB_RETRY;
            res->error = apr_psprintf(p, "keeping the list page of %s: %s", id, c->error);
        }
    }
    trv_db_close(env->db, c);
}
