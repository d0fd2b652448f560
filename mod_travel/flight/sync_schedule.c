#include "sync_schedule.h"
#include "core/clock.h"

#include <stdio.h>

/* "YYYY-MM-DDTHH:MM..." -> an instant, reading the wall time as UTC. */
static int wall_time(const char *s, apr_time_t *out)
{
    int y, mo, d, h, mi;
    if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d", &y, &mo, &d, &h, &mi) != 5 || mo < 1
        || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59) {
        return 0;
    }
    *out = apr_time_from_sec(((apr_time_t)trv_days_from_civil(y, mo, d) * 86400)
                             + h * 3600 + mi * 60);
    return 1;
}

apr_interval_time_t trv_fsync_next(const json_t *journeys, apr_time_t now)
{
    apr_time_t next = 0, dep;
    apr_interval_time_t in;
    size_t i;

    for (i = 0; i < json_array_size(journeys); i++) {
        const json_t *jn = json_array_get(journeys, i);
        if (wall_time(json_string_value(json_object_get(jn, "departure_time")), &dep)
            && dep > now && (next == 0 || dep < next)) {
            next = dep;
        }
    }
    if (next == 0) {
        return 0;
    }
    in = (next - now) / 24;
    return in < TRV_FSYNC_MIN ? TRV_FSYNC_MIN : in > TRV_FSYNC_MAX ? TRV_FSYNC_MAX : in;
}
