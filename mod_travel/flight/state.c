#include "state.h"

#include <stddef.h>
#include <string.h>

const char *const trv_fb_statuses[] = {
    TRV_FB_CREATED, TRV_FB_PREBOOK_IN_PROGRESS, TRV_FB_READY, TRV_FB_COMPLETING,
    TRV_FB_CONFIRMED, TRV_FB_CANCELING, TRV_FB_CANCELED, TRV_FB_FAILED, TRV_FB_EXPIRED,
    NULL};

/* The service document's transition table, plus the transitions it leaves
 * open (into PREBOOK_IN_PROGRESS and EXPIRED, and back to READY_FOR_COMPLETE
 * when a book attempt changed nothing: a declined card, a supplier that was
 * unreachable). */
static const struct { const char *from, *to; } transitions[] = {
    {TRV_FB_CREATED, TRV_FB_PREBOOK_IN_PROGRESS},
    {TRV_FB_PREBOOK_IN_PROGRESS, TRV_FB_READY},
    {TRV_FB_PREBOOK_IN_PROGRESS, TRV_FB_FAILED},
    {TRV_FB_READY, TRV_FB_COMPLETING},
    {TRV_FB_READY, TRV_FB_CONFIRMED},
    {TRV_FB_READY, TRV_FB_EXPIRED},
    {TRV_FB_READY, TRV_FB_FAILED},
    {TRV_FB_COMPLETING, TRV_FB_CONFIRMED},
    {TRV_FB_COMPLETING, TRV_FB_FAILED},
    {TRV_FB_COMPLETING, TRV_FB_READY},
    {TRV_FB_CONFIRMED, TRV_FB_CANCELING},
    {TRV_FB_CANCELING, TRV_FB_CANCELED},
    {TRV_FB_CANCELING, TRV_FB_CONFIRMED},
};

static int eq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

int trv_fb_status_valid(const char *status)
{
    const char *const *s;
    for (s = trv_fb_statuses; *s; s++) {
        if (eq(*s, status)) {
            return 1;
        }
    }
    return 0;
}

int trv_fb_transition_allowed(const char *from, const char *to)
{
    size_t i;
    for (i = 0; i < sizeof(transitions) / sizeof(transitions[0]); i++) {
        if (eq(transitions[i].from, from) && eq(transitions[i].to, to)) {
            return 1;
        }
    }
    return 0;
}

int trv_fb_unfinished(const char *status)
{
    return eq(status, TRV_FB_CREATED) || eq(status, TRV_FB_PREBOOK_IN_PROGRESS)
        || eq(status, TRV_FB_READY) || eq(status, TRV_FB_COMPLETING);
}

trv_fb_book_action trv_fb_book_decision(const char *status, const char *phase,
                                        int past_expiry)
{
    if (eq(status, TRV_FB_READY)) {
        return past_expiry ? TRV_FB_BOOK_EXPIRED : TRV_FB_BOOK_START;
    }
    if (eq(status, TRV_FB_EXPIRED)) {
        return TRV_FB_BOOK_EXPIRED;
    }
    if (eq(status, TRV_FB_CONFIRMED)) {
        return TRV_FB_BOOK_CONFIRMED;
    }
    if (eq(status, TRV_FB_COMPLETING)) {
        return eq(phase, "unknown") ? TRV_FB_BOOK_UNKNOWN : TRV_FB_BOOK_IN_PROGRESS;
    }
    return TRV_FB_BOOK_NOT_BOOKABLE;
}

trv_fb_cancel_action trv_fb_cancel_decision(const char *status)
{
    if (eq(status, TRV_FB_CONFIRMED)) {
        return TRV_FB_CANCEL_START;
    }
    if (eq(status, TRV_FB_CANCELING)) {
        return TRV_FB_CANCEL_RUNNING;
    }
    if (eq(status, TRV_FB_CANCELED)) {
        return TRV_FB_CANCEL_DONE;
    }
    return TRV_FB_CANCEL_NOT_CANCELABLE;
}

const char *trv_fb_effective_status(const char *status, int past_expiry)
{
    return eq(status, TRV_FB_READY) && past_expiry ? TRV_FB_EXPIRED : status;
}
