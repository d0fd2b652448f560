/* Virtual hosts as tenants. Each server (the main one and every
 * <VirtualHost>) may name its own database with mod_dbd's DBDParams; the
 * servers are grouped by the database they name, and each group has one
 * leader (the first server of the list that names it, the main server
 * first): the group's background workers, key cache and listener run once
 * per child with the leader's environment, whichever virtual host queued
 * the work. mod_dbd keeps its configuration to itself, so the database of
 * each server is read from the configuration tree (DBDriver and DBDParams
 * at server level; a virtual host without them inherits the main
 * server's, as mod_dbd merges them). */
#include "travel.h"
#include "core/config_jobs.h"

#include "http_config.h"
#include "util_cfgtree.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <strings.h>

typedef struct dbd_text {
    const char *driver;
    const char *params;
    int max; /* DBDMax; 0 when not set */
} dbd_text;

/* DBDriver and DBDParams among one level's directives (the contents of
 * <IfModule>, <IfDefine> and Include are part of their level in the tree);
 * the last one wins, as in mod_dbd. */
static void read_dbd(apr_pool_t *p, const ap_directive_t *d, dbd_text *t)
{
    for (; d; d = d->next) {
        const char *args = d->args ? d->args : "";
        if (strcasecmp(d->directive, "DBDriver") == 0) {
            t->driver = ap_getword_conf(p, &args);
        }
        else if (strcasecmp(d->directive, "DBDParams") == 0) {
            t->params = ap_getword_conf(p, &args);
        }
        else if (strcasecmp(d->directive, "DBDMax") == 0) {
            t->max = atoi(args);
        }
    }
}

static const ap_directive_t *vhost_section(const server_rec *sv)
{
    const ap_directive_t *d;
    for (d = ap_conftree; d; d = d->next) {
        if (strcasecmp(d->directive, "<VirtualHost") == 0 && d->filename
            && sv->defn_name && strcmp(d->filename, sv->defn_name) == 0
            && (int)d->line_num == (int)sv->defn_line_number) {
            return d;
        }
    }
    return NULL;
}

/* "driver\nparams" of server sv (main server: s), inherited field by field;
 * a key of its own when sv's section cannot be found. */
static const char *db_key(apr_pool_t *p, const server_rec *s, const server_rec *sv,
                          const dbd_text *main_dbd)
{
    dbd_text t = {NULL, NULL, 0};
    const ap_directive_t *sec;
    if (sv != s) {
        if (!(sec = vhost_section(sv))) {
            /* Not found in the tree: its database is unknown, so it shares
             * nothing (workers, key cache) with another server. */
            return apr_psprintf(p, "unknown\n%pp", (const void *)sv);
        }
        read_dbd(p, sec->first_child, &t);
    }
    if (!t.driver || !*t.driver) {
        t.driver = main_dbd->driver;
    }
    if (!t.params || !*t.params) {
        t.params = main_dbd->params;
    }
    return apr_pstrcat(p, t.driver ? t.driver : "", "\n", t.params ? t.params : "", NULL);
}

const char *trv_server_label(apr_pool_t *p, const server_rec *sv)
{
    if (!sv->is_virtual) {
        return "the main server";
    }
    return apr_psprintf(p, "<VirtualHost> %s (%s line %d)",
                        sv->server_hostname ? sv->server_hostname : "",
                        sv->defn_name ? sv->defn_name : "?", sv->defn_line_number);
}

/* DBDParams may hold a password: messages name the servers, never it. */
const char *trv_tenants_group(apr_pool_t *pconf, apr_pool_t *ptemp, server_rec *s)
{
    dbd_text main_dbd = {NULL, NULL, 0};
    apr_hash_t *leaders = apr_hash_make(ptemp);
    server_rec *sv;

    read_dbd(ptemp, ap_conftree, &main_dbd);
    for (sv = s; sv; sv = sv->next) {
        trv_srv_conf *c = ap_get_module_config(sv->module_config, &travel_module);
        const char *key = db_key(ptemp, s, sv, &main_dbd);
        server_rec *leader = apr_hash_get(leaders, key, APR_HASH_KEY_STRING);
        const char *differs;
        if (key[0] == '\n' && key[1]) {
            return apr_psprintf(pconf, "%s has a DBDParams but no DBDriver (in it or in the "
                                "main server): add DBDriver pgsql",
                                trv_server_label(ptemp, sv));
        }
        c->no_database = strcmp(key, "\n") == 0;
        /* mod_dbd's default for a threaded MPM; the main server's value
         * stands for every virtual host (a pool size check, listener). */
        c->dbd_max = main_dbd.max > 0 ? main_dbd.max : 10;
        if (!leader) {
            apr_hash_set(leaders, key, APR_HASH_KEY_STRING, sv);
            c->db_leader = sv;
            continue;
        }
        c->db_leader = leader;
        differs = trv_config_jobs_differ(
            &((trv_srv_conf *)ap_get_module_config(leader->module_config, &travel_module))->cfg,
            &c->cfg);
        if (differs) {
            return apr_psprintf(pconf,
                                "%s shares its database (DBDriver and DBDParams) "
                                "with %s but their %s settings differ. The background "
                                "jobs of one database run with one configuration: give "
                                "the virtual host a DBDParams of its own (a database of "
                                "its own), or the same %s as %s",
                                trv_server_label(ptemp, sv), trv_server_label(ptemp, leader),
                                differs, differs, trv_server_label(ptemp, leader));
        }
    }
    return NULL;
}
