#include "offer_text.h"

/* A search's answer is tens of kB (39 offers of LHR-JFK: 40 kB). */
#define LIST_CAP (64 * 1024)

void trv_foffer_list_init(trv_foffer_list *l, apr_pool_t *p)
{
    l->p = p;
    trv_jtext_init(&l->text, p, LIST_CAP);
    trv_jtext_arr(&l->text);
    l->offers = apr_array_make(p, 64, sizeof(trv_foffer_text));
}

trv_foffer_text *trv_foffer_list_open(trv_foffer_list *l, const char *ref,
                                      const char *expires_at)
{
    trv_foffer_text *o = apr_array_push(l->offers);
    o->ref = ref;
    o->expires_at = expires_at;
    o->members = NULL;
    o->members_len = 0;
    o->stops = 0;
    o->carriers = apr_array_make(l->p, 4, sizeof(const char *));
    trv_jtext_obj(&l->text);
    o->start = l->text.len;
    return o;
}

void trv_foffer_text_carrier(trv_foffer_text *o, const char *code)
{
    APR_ARRAY_PUSH(o->carriers, const char *) = code;
}

void trv_foffer_list_close(trv_foffer_list *l)
{
    trv_foffer_text *o = &APR_ARRAY_IDX(l->offers, l->offers->nelts - 1, trv_foffer_text);
    /* The members' end; the buffer may still move, so an offset for now. */
    o->members_len = l->text.len - o->start;
    trv_jtext_end(&l->text);
}

apr_array_header_t *trv_foffer_list_done(trv_foffer_list *l)
{
    const char *text;
    int i;
    trv_jtext_end(&l->text);
    if (!(text = trv_jtext_done(&l->text, NULL))) {
        return NULL;
    }
    for (i = 0; i < l->offers->nelts; i++) {
        trv_foffer_text *o = &APR_ARRAY_IDX(l->offers, i, trv_foffer_text);
        o->members = text + o->start;
    }
    return l->offers;
}

void trv_foffer_text_write(trv_jtext *t, const trv_foffer_text *o, const char *reference)
{
    trv_jtext_obj(t);
    trv_jtext_kstr(t, "offer_reference", reference);
    if (o->members_len) {
        trv_jtext_put(t, ",", 1);
        trv_jtext_put(t, o->members, o->members_len);
    }
    trv_jtext_end(t);
}

json_t *trv_foffer_text_tree(apr_pool_t *p, const apr_array_header_t *offers)
{
    trv_jtext t;
    const char *text;
    apr_size_t len;
    int i;
    trv_jtext_init(&t, p, LIST_CAP);
    trv_jtext_arr(&t);
    for (i = 0; i < offers->nelts; i++) {
        const trv_foffer_text *o = &APR_ARRAY_IDX(offers, i, trv_foffer_text);
        trv_foffer_text_write(&t, o, o->ref);
    }
    trv_jtext_end(&t);
    return (text = trv_jtext_done(&t, &len)) ? json_loadb(text, len, 0, NULL) : NULL;
}
