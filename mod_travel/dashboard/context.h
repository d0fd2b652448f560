/* What the parts of one dashboard request share (private to dashboard/). */
#ifndef TRV_DASHBOARD_CONTEXT_H
#define TRV_DASHBOARD_CONTEXT_H

#include "logins.h"
#include "core/api.h"
#include "core/router.h"

typedef struct trv_dash_ctx {
    trv_req *req;             /* the page request: pool, env, log, request id */
    const trv_router *api;    /* the API's routes (api_call.c) */
    trv_dash_who who;         /* the login and the user it acts as */
    const char *csrf;         /* the token every form carries */
    const char *style_nonce;  /* the page's <style> is allowed by this (CSP) */
} trv_dash_ctx;

/* What an action tells the page: a message, and a secret to show once. */
typedef struct trv_dash_notice {
    int status;               /* the answer's status: 200, 201, 4xx, 5xx */
    const char *message;      /* plain text; escaped when rendered */
    const char *secret;       /* shown once in the data-secret element */
    const char *link;         /* a redirect's query ("?delivery=..."), instead of
                               * "?done=<done>" */
} trv_dash_notice;

#endif
