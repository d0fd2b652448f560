/* One declaration for each registry, and every copy held against it:
 *
 * - event types: each domain's registration (its domain.c) is the list;
 *   docs/openapi.yaml's enums (FlightEventType, HotelEventType, the
 *   WatcherEvent type) and its webhooks section name exactly those;
 * - suppliers: the protocol rows (flight/suppliers.c, hotel/suppliers.c);
 *   the OpenAPI supplier enums are the wire names the test stack binds
 *   (conf/stack.conf.in), every line binds a registered protocol of its
 *   domain, and every protocol is bound there (so the e2e tests reach it);
 * - job kinds: each kind's trv_job_spec; a migration that queues a job with
 *   a literal kind (the .sql files of sql/) names a registered kind, and its
 *   max_attempts is the registered one (in the latest definition of a
 *   function: migrations are history, a later one redefines);
 * - TRV log tags: docs/log-tags.md declares each tag once with the file
 *   that logs it; a tag in the source that is not declared, declared for
 *   another file, declared and unused, used by two files, or (as
 *   TRVLOGNO(n)) logged with two different texts, fails; a tag is used
 *   as TRVLOGNO(n), as the number a logging function's "int logno"
 *   parameter is given, or as a table's field named for it
 *   (".list_logno_open = 301", lifecycle/reads.h);
 * - interfaces between domains: a domain's file includes another
 *   domain's header only when docs/architecture.md's "Interfaces between
 *   domains" declares that header (core/ is everyone's).
 *
 * Each checker is also shown to catch its kind of drift on purpose-made
 * mistakes. Files are read relative to the working directory (the
 * checkout's root, as `make test` runs it) or $TRAVEL_SOURCE_ROOT. */
#include "unit.h"

#include <apr_file_info.h>
#include <apr_hash.h>
#include <apr_strings.h>
#include <apr_tables.h>
#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/registry.h"
#include "gateway/gateway.h"
#include "webhook/test_event.h"

#include "problems.h"
#include "yaml_json.h"

/* ---- problems ---- */

static problems *problems_new(apr_pool_t *p)
{
    problems *pr = apr_pcalloc(p, sizeof(*pr));
    pr->pool = p;
    pr->list = apr_array_make(p, 8, sizeof(const char *));
    return pr;
}

static void assert_none(const problems *pr)
{
    int i;
    for (i = 0; i < pr->list->nelts; i++) {
        print_error("  %s\n", APR_ARRAY_IDX(pr->list, i, const char *));
    }
    assert_int_equal(pr->list->nelts, 0);
}

/* ---- reading the tree ---- */

typedef struct source {
    const char *name;  /* relative to its folder: "flight/book.c", "040_read_path.sql" */
    const char *text;  /* comments blanked */
} source;

static const char *root_path(apr_pool_t *p, const char *rel)
{
    const char *root = getenv("TRAVEL_SOURCE_ROOT");
    return root ? apr_pstrcat(p, root, "/", rel, NULL) : rel;
}

static char *slurp(apr_pool_t *p, const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;
    if (!f) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = apr_palloc(p, (apr_size_t)n + 1);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
        n = 0;
    }
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* The end of a quoted literal starting at s (at its quote). */
static const char *literal_end(const char *s)
{
    char q = *s++;
    while (*s && *s != q) {
        s += (*s == '\\' && s[1]) ? 2 : 1;
    }
    return *s ? s + 1 : s;
}

/* C source with its comments blanked (newlines kept); literals as they are. */
static char *blank_c_comments(apr_pool_t *p, const char *in)
{
    char *out = apr_pstrdup(p, in), *s = out;
    while (*s) {
        if (s[0] == '/' && s[1] == '*') {
            char *e = strstr(s + 2, "*/");
            e = e ? e + 2 : s + strlen(s);
            for (; s < e; s++) {
                *s = *s == '\n' ? '\n' : ' ';
            }
        }
        else if (s[0] == '/' && s[1] == '/') {
            for (; *s && *s != '\n'; s++) {
                *s = ' ';
            }
        }
        else if (*s == '"' || *s == '\'') {
            s = (char *)literal_end(s);
        }
        else {
            s++;
        }
    }
    return out;
}

/* SQL with its -- comments blanked; 'literals' kept. */
static char *blank_sql_comments(apr_pool_t *p, const char *in)
{
    char *out = apr_pstrdup(p, in), *s = out;
    while (*s) {
        if (s[0] == '-' && s[1] == '-') {
            for (; *s && *s != '\n'; s++) {
                *s = ' ';
            }
        }
        else if (*s == '\'') {
            char *e = strchr(s + 1, '\'');
            s = e ? e + 1 : s + strlen(s);
        }
        else {
            s++;
        }
    }
    return out;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(((const source *)a)->name, ((const source *)b)->name);
}

/* Every file of dir (recursively when deep) whose name ends with one of
 * exts, sorted by name. */
static void read_tree(apr_pool_t *p, const char *dir, const char *rel, int deep,
                      const char *const *exts, int sql, apr_array_header_t *out)
{
    apr_dir_t *d;
    apr_finfo_t fi;
    const char *path = rel ? apr_pstrcat(p, dir, "/", rel, NULL) : dir;
    assert_int_equal(apr_dir_open(&d, path, p), APR_SUCCESS);
    while (apr_dir_read(&fi, APR_FINFO_NAME | APR_FINFO_TYPE, d) == APR_SUCCESS) {
        const char *name = rel ? apr_pstrcat(p, rel, "/", fi.name, NULL) : fi.name;
        const char *const *e;
        if (fi.name[0] == '.') {
            continue;
        }
        if (fi.filetype == APR_DIR) {
            if (deep) {
                read_tree(p, dir, name, deep, exts, sql, out);
            }
            continue;
        }
        for (e = exts; *e; e++) {
            size_t n = strlen(fi.name), k = strlen(*e);
            if (n > k && strcmp(fi.name + n - k, *e) == 0) {
                source *s = apr_array_push(out);
                char *text = slurp(p, apr_pstrcat(p, dir, "/", name, NULL));
                assert_non_null(text);
                s->name = name;
                s->text = sql ? blank_sql_comments(p, text) : blank_c_comments(p, text);
                break;
            }
        }
    }
    apr_dir_close(d);
    if (!rel) {
        qsort(out->elts, (size_t)out->nelts, sizeof(source), cmp_names);
    }
}

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* The arguments of a call whose '(' is just before s: each one's text
 * (trimmed), up to the closing ')'. */
static apr_array_header_t *call_args(apr_pool_t *p, const char *s)
{
    apr_array_header_t *args = apr_array_make(p, 8, sizeof(const char *));
    const char *start = s;
    int depth = 0;
    while (*s) {
        if (*s == '"' || *s == '\'') {
            s = literal_end(s);
            continue;
        }
        if (*s == '(' || *s == '[' || *s == '{') {
            depth++;
        }
        else if (*s == ')' || *s == ']' || *s == '}') {
            if (depth-- == 0) {
                break;
            }
        }
        else if (*s == ',' && depth == 0) {
            APR_ARRAY_PUSH(args, const char *) = apr_pstrndup(p, start, (apr_size_t)(s - start));
            start = s + 1;
        }
        s++;
    }
    APR_ARRAY_PUSH(args, const char *) = apr_pstrndup(p, start, (apr_size_t)(s - start));
    for (depth = 0; depth < args->nelts; depth++) {
        char *a = APR_ARRAY_IDX(args, depth, char *), *e;
        while (isspace((unsigned char)*a)) {
            a++;
        }
        for (e = a + strlen(a); e > a && isspace((unsigned char)e[-1]); e--) {
        }
        *e = '\0';
        APR_ARRAY_IDX(args, depth, char *) = a;
    }
    return args;
}

static int all_digits(const char *s)
{
    if (!*s) {
        return 0;
    }
    for (; *s; s++) {
        if (!isdigit((unsigned char)*s)) {
            return 0;
        }
    }
    return 1;
}

static int line_of(const char *text, const char *at)
{
    int n = 1;
    for (; text < at; text++) {
        n += *text == '\n';
    }
    return n;
}

/* ---- TRV log tags ---- */

typedef struct tag_use {
    const char *file;
    int line;
    const char *text; /* a TRVLOGNO message's literal text; NULL for a helper's number */
} tag_use;

static void add_use(apr_pool_t *p, apr_hash_t *uses, const char *num, const char *file,
                    int line, const char *text)
{
    apr_array_header_t *a = apr_hash_get(uses, num, APR_HASH_KEY_STRING);
    tag_use *u;
    if (!a) {
        a = apr_array_make(p, 2, sizeof(tag_use));
        apr_hash_set(uses, apr_pstrdup(p, num), APR_HASH_KEY_STRING, a);
    }
    u = apr_array_push(a);
    u->file = file;
    u->line = line;
    u->text = text;
}

/* Functions that log a number their callers give (an "int logno"
 * parameter, or several: "int logno_open, int logno_read"): name -> their
 * positions (an int, boxed: bit n for the n-th parameter). Those declared in a
 * header go to global; those of a .c file to local (file-scoped, as two
 * files may each have a static db_failed). */
static void logno_functions(apr_pool_t *p, const source *s, apr_hash_t *global,
                            apr_hash_t *local)
{
    const char *m = s->text;
    size_t n = strlen(s->name);
    apr_hash_t *into = (n > 2 && strcmp(s->name + n - 2, ".h") == 0) ? global : local;
    while ((m = strstr(m, "int logno"))) {
        const char *open = m;
        int depth = 0, pos = 0;
        const char *c, *name_end, *name;
        int *boxed;
        while (open > s->text) {
            open--;
            if (*open == ')') {
                depth++;
            }
            else if (*open == '(') {
                if (depth == 0) {
                    break;
                }
                depth--;
            }
        }
        for (c = open + 1; c < m; c++) {
            pos += *c == ',';
        }
        for (name_end = open; name_end > s->text && isspace((unsigned char)name_end[-1]);
             name_end--) {
        }
        for (c = name_end; c > s->text && ident_char(c[-1]); c--) {
        }
        name = apr_pstrndup(p, c, (apr_size_t)(name_end - c));
        boxed = apr_hash_get(into, name, APR_HASH_KEY_STRING);
        if (!boxed) {
            boxed = apr_pcalloc(p, sizeof(int));
            apr_hash_set(into, name, APR_HASH_KEY_STRING, boxed);
        }
        *boxed |= 1 << pos;
        m += 9;
    }
}

/* The literal text of a TRVLOGNO message: its adjacent string literals,
 * joined, up to the end of the argument. */
static const char *message_text(apr_pool_t *p, const char *s)
{
    const char *arg = APR_ARRAY_IDX(call_args(p, s), 0, const char *);
    const char *text = "";
    while ((arg = strchr(arg, '"'))) {
        const char *e = literal_end(arg);
        text = apr_pstrcat(p, text, apr_pstrndup(p, arg + 1, (apr_size_t)(e - arg - 2)), NULL);
        arg = e;
    }
    return text;
}

static void scan_calls(apr_pool_t *p, const source *s, apr_hash_t *fns, apr_hash_t *uses)
{
    apr_hash_index_t *hi;
    for (hi = apr_hash_first(p, fns); hi; hi = apr_hash_next(hi)) {
        const char *name = apr_hash_this_key(hi);
        int positions = *(const int *)apr_hash_this_val(hi), pos;
        size_t n = strlen(name);
        const char *m = s->text;
        while ((m = strstr(m, name))) {
            const char *after = m + n;
            apr_array_header_t *args;
            while (isspace((unsigned char)*after)) {
                after++;
            }
            if ((m > s->text && (ident_char(m[-1]) || m[-1] == '.' || m[-1] == '>'))
                || ident_char(m[n]) || *after != '(') {
                m += n;
                continue;
            }
            args = call_args(p, after + 1);
            for (pos = 0; pos < args->nelts && pos < 31; pos++) {
                if ((positions & (1 << pos))
                    && all_digits(APR_ARRAY_IDX(args, pos, const char *))) {
                    add_use(p, uses, APR_ARRAY_IDX(args, pos, const char *), s->name,
                            line_of(s->text, m), NULL);
                }
            }
            m += n;
        }
    }
}

/* Numbers a table gives by name: a designated initializer of a field
 * whose name holds "logno" (".list_logno_open = 301", the route's table
 * of the booking reads, lifecycle/reads.h). */
static void scan_fields(apr_pool_t *p, const source *s, apr_hash_t *uses)
{
    const char *m = s->text;
    while ((m = strstr(m, "logno"))) {
        const char *b = m, *e = m + 5, *d;
        while (b > s->text && ident_char(b[-1])) {
            b--;
        }
        while (ident_char(*e)) {
            e++;
        }
        m = e;
        if (b == s->text || b[-1] != '.') {
            continue;
        }
        while (isspace((unsigned char)*e)) {
            e++;
        }
        if (*e != '=' || e[1] == '=') {
            continue;
        }
        for (e++; isspace((unsigned char)*e); e++) {
        }
        for (d = e; isdigit((unsigned char)*d); d++) {
        }
        if (d > e && !ident_char(*d)) {
            add_use(p, uses, apr_pstrndup(p, e, (apr_size_t)(d - e)), s->name,
                    line_of(s->text, b), NULL);
        }
    }
}

/* Every tag the sources use: number (text) -> tag_use array. */
static apr_hash_t *tag_uses(apr_pool_t *p, const apr_array_header_t *sources)
{
    apr_hash_t *uses = apr_hash_make(p), *global = apr_hash_make(p);
    apr_hash_t **local = apr_pcalloc(p, sizeof(apr_hash_t *) * (size_t)(sources->nelts + 1));
    int i;
    for (i = 0; i < sources->nelts; i++) {
        local[i] = apr_hash_make(p);
        logno_functions(p, &APR_ARRAY_IDX(sources, i, source), global, local[i]);
    }
    for (i = 0; i < sources->nelts; i++) {
        const source *s = &APR_ARRAY_IDX(sources, i, source);
        const char *m = s->text;
        while ((m = strstr(m, "TRVLOGNO("))) {
            const char *num = m + 9, *close = strchr(num, ')');
            const char *digits = close ? apr_pstrndup(p, num, (apr_size_t)(close - num)) : "";
            if (all_digits(digits)) {
                add_use(p, uses, digits, s->name, line_of(s->text, m),
                        message_text(p, close + 1));
            }
            m += 9;
        }
        scan_calls(p, s, apr_hash_overlay(p, local[i], global), uses);
        scan_fields(p, s, uses);
    }
    return uses;
}

/* docs/log-tags.md's table: "| TRVn | file | message |" rows; number ->
 * file. A number declared twice is a problem. */
static apr_hash_t *tags_declared(apr_pool_t *p, const char *doc, problems *pr)
{
    apr_hash_t *declared = apr_hash_make(p);
    const char *line = doc;
    while (line && *line) {
        const char *next = strchr(line, '\n');
        char num[16], file[256];
        if (sscanf(line, "| TRV%15[0-9] | %255[^ |] |", num, file) == 2) {
            if (apr_hash_get(declared, num, APR_HASH_KEY_STRING)) {
                problem(pr, "TRV%s is declared twice in docs/log-tags.md", num);
            }
            apr_hash_set(declared, apr_pstrdup(p, num), APR_HASH_KEY_STRING,
                         apr_pstrdup(p, file));
        }
        line = next ? next + 1 : NULL;
    }
    return declared;
}

static void check_tags(apr_pool_t *p, const apr_array_header_t *sources, const char *doc,
                       problems *pr)
{
    apr_hash_t *declared = tags_declared(p, doc, pr), *uses = tag_uses(p, sources);
    apr_hash_index_t *hi;
    for (hi = apr_hash_first(p, uses); hi; hi = apr_hash_next(hi)) {
        const char *num = apr_hash_this_key(hi);
        const apr_array_header_t *a = apr_hash_this_val(hi);
        const tag_use *first = &APR_ARRAY_IDX(a, 0, tag_use);
        const char *file = apr_hash_get(declared, num, APR_HASH_KEY_STRING);
        const char *text = NULL;
        int i;
        for (i = 0; i < a->nelts; i++) {
            const tag_use *u = &APR_ARRAY_IDX(a, i, tag_use);
            if (strcmp(u->file, first->file) != 0) {
                problem(pr, "TRV%s is used by two files: %s:%d and %s:%d", num, first->file,
                        first->line, u->file, u->line);
            }
            else if (u->text && text && strcmp(u->text, text) != 0) {
                problem(pr, "TRV%s is logged with two messages in %s (line %d: \"%s\")", num,
                        u->file, u->line, u->text);
            }
            text = u->text ? u->text : text;
        }
        if (!file) {
            problem(pr, "TRV%s (%s:%d) is not declared in docs/log-tags.md", num, first->file,
                    first->line);
        }
        else if (strcmp(file, first->file) != 0) {
            problem(pr, "TRV%s is declared for %s but logged by %s:%d", num, file, first->file,
                    first->line);
        }
    }
    for (hi = apr_hash_first(p, declared); hi; hi = apr_hash_next(hi)) {
        if (!apr_hash_get(uses, apr_hash_this_key(hi), APR_HASH_KEY_STRING)) {
            problem(pr, "TRV%s is declared in docs/log-tags.md but nothing logs it",
                    (const char *)apr_hash_this_key(hi));
        }
    }
}

/* ---- job kinds in the migrations ---- */

/* Whether s starts with the keyword kw (any case) as a whole word. */
static int keyword_at(const char *s, const char *kw)
{
    size_t n = strlen(kw);
    return strncasecmp(s, kw, n) == 0 && !ident_char(s[n]);
}

/* The next CREATE [OR REPLACE] FUNCTION from s (not EXECUTE FUNCTION):
 * its name in [*name, *end), or NULL. */
static const char *next_function(const char *text, const char *s, const char **name,
                                 const char **end)
{
    while ((s = strcasestr(s, "FUNCTION "))) {
        const char *b = s;
        while (b > text && isspace((unsigned char)b[-1])) {
            b--;
        }
        if ((b - text >= 6 && strncasecmp(b - 6, "CREATE", 6) == 0)
            || (b - text >= 7 && strncasecmp(b - 7, "REPLACE", 7) == 0)) {
            *name = *end = s + 9;
            while (ident_char(**end)) {
                (*end)++;
            }
            return s;
        }
        s += 9;
    }
    return NULL;
}

/* The function a position is inside ($$ body of CREATE [OR REPLACE]
 * FUNCTION name), or NULL. */
static const char *function_at(apr_pool_t *p, const char *text, const char *at)
{
    const char *s = text, *found = NULL, *name, *e;
    while ((s = next_function(text, s, &name, &e))) {
        const char *open, *close;
        open = strstr(e, "$$");
        close = open ? strstr(open + 2, "$$") : NULL;
        if (!close) {
            break;
        }
        if (at > open && at < close) {
            found = apr_pstrndup(p, name, (apr_size_t)(e - name));
        }
        s = close + 2;
    }
    return found;
}

/* The SELECT list or VALUES tuple after INSERT INTO jobs (...): the
 * values' texts, as many as it has at depth 0. */
static apr_array_header_t *insert_values(apr_pool_t *p, const char *s)
{
    apr_array_header_t *vals = apr_array_make(p, 8, sizeof(const char *));
    const char *start;
    int depth = 0;
    while (isspace((unsigned char)*s)) {
        s++;
    }
    if (keyword_at(s, "VALUES")) {
        s = strchr(s, '(');
        return s ? call_args(p, s + 1) : vals;
    }
    if (!keyword_at(s, "SELECT")) {
        return vals;
    }
    start = s += 6;
    for (; *s; s++) {
        if (*s == '\'') {
            s = literal_end(s) - 1;
            continue;
        }
        if (*s == '(') {
            depth++;
        }
        else if (*s == ')' && depth-- == 0) {
            break;
        }
        else if (depth == 0 && (*s == ';' || ((s == start || !ident_char(s[-1]))
                                              && (keyword_at(s, "FROM") || keyword_at(s, "ON"))))) {
            break;
        }
    }
    return call_args(p, apr_pstrcat(p, apr_pstrndup(p, start, (apr_size_t)(s - start)), ")",
                                     NULL));
}

static int column_index(const apr_array_header_t *cols, const char *name)
{
    int i;
    for (i = 0; i < cols->nelts; i++) {
        if (strcmp(APR_ARRAY_IDX(cols, i, const char *), name) == 0) {
            return i;
        }
    }
    return -1;
}

static const char *unquote(apr_pool_t *p, const char *v)
{
    size_t n = strlen(v);
    return n >= 2 && v[0] == '\'' && v[n - 1] == '\'' ? apr_pstrndup(p, v + 1, n - 2) : NULL;
}

static void check_kind(problems *pr, const trv_registry *reg, const char *file, int line,
                       const char *kind)
{
    if (!trv_registry_job(reg, kind)) {
        problem(pr, "sql/%s:%d: job kind '%s' is not a registered kind", file, line, kind);
    }
}

/* Each INSERT INTO jobs of a migration with its kind a literal: calls
 * found(baton, migration, line, function or NULL, kind, max_attempts
 * text or NULL). */
typedef void job_insert_fn(void *baton, const source *m, int line, const char *fn,
                           const char *kind, const char *max_attempts);

static void job_inserts(apr_pool_t *p, const source *m, job_insert_fn *found, void *baton)
{
    const char *s = m->text;
    while ((s = strcasestr(s, "INSERT INTO jobs"))) {
        const char *open = s + 16, *close;
        apr_array_header_t *cols, *vals;
        const char *fn = function_at(p, m->text, s), *kind;
        int k, a, line = line_of(m->text, s);
        s += 16;
        while (isspace((unsigned char)*open)) {
            open++;
        }
        if (*open != '(' || !(close = strchr(open, ')'))) {
            continue;
        }
        cols = call_args(p, open + 1);
        vals = insert_values(p, close + 1);
        k = column_index(cols, "kind");
        a = column_index(cols, "max_attempts");
        if (k < 0 || k >= vals->nelts
            || !(kind = unquote(p, APR_ARRAY_IDX(vals, k, const char *)))) {
            continue; /* the kind is a parameter (webhook_publish's p_send_kind) */
        }
        found(baton, m, line, fn, kind,
              a >= 0 && a < vals->nelts ? APR_ARRAY_IDX(vals, a, const char *) : NULL);
    }
}

typedef struct sql_check {
    apr_pool_t *p;
    const trv_registry *reg;
    problems *pr;
    apr_hash_t *latest; /* function, or kind of a statement outside one -> its last migration */
} sql_check;

static void note_latest(void *baton, const source *m, int line, const char *fn,
                        const char *kind, const char *max_attempts)
{
    sql_check *x = baton;
    (void)line;
    (void)max_attempts;
    if (!fn) {
        apr_hash_set(x->latest, apr_pstrcat(x->p, "kind ", kind, NULL), APR_HASH_KEY_STRING,
                     m->name);
    }
}

static void check_insert(void *baton, const source *m, int line, const char *fn,
                         const char *kind, const char *max_attempts)
{
    sql_check *x = baton;
    const trv_job_spec *spec = trv_registry_job(x->reg, kind);
    const char *last = apr_hash_get(x->latest, fn ? fn : apr_pstrcat(x->p, "kind ", kind, NULL),
                                    APR_HASH_KEY_STRING);
    check_kind(x->pr, x->reg, m->name, line, kind);
    /* Migrations are history: a limit is the registered one where it is
     * still in force, in the last definition of its function (or, outside
     * one, the last migration that queues the kind). */
    if (spec && max_attempts && last && strcmp(last, m->name) == 0
        && atoi(max_attempts) != spec->max_attempts) {
        problem(x->pr, "sql/%s:%d: '%s' is queued with max_attempts %s, registered with %d",
                m->name, line, kind, max_attempts, spec->max_attempts);
    }
}

/* migrations: source array, sorted (the order they run in). */
static void check_sql_jobs(apr_pool_t *p, const trv_registry *reg,
                           const apr_array_header_t *migrations, problems *pr)
{
    sql_check x = {p, reg, pr, apr_hash_make(p)};
    int i;
    for (i = 0; i < migrations->nelts; i++) {
        const source *m = &APR_ARRAY_IDX(migrations, i, source);
        const char *s = m->text, *name, *e;
        while ((s = next_function(m->text, s, &name, &e))) {
            apr_hash_set(x.latest, apr_pstrndup(p, name, (apr_size_t)(e - name)),
                         APR_HASH_KEY_STRING, m->name);
            s = e;
        }
        job_inserts(p, m, note_latest, &x);
    }
    for (i = 0; i < migrations->nelts; i++) {
        const source *m = &APR_ARRAY_IDX(migrations, i, source);
        const char *s;
        job_inserts(p, m, check_insert, &x);
        /* Kinds compared with: j.kind = 'webhook.send' (a job kind has a
         * dot; other tables' kinds, such as hotel_payments' 'BOOK', none). */
        s = m->text;
        while ((s = strstr(s, "kind = '"))) {
            const char *q = s + 7, *e = literal_end(q);
            const char *kind = apr_pstrndup(p, q + 1, (apr_size_t)(e - q - 2));
            if (strchr(kind, '.')) {
                check_kind(pr, reg, m->name, line_of(m->text, s), kind);
            }
            s = e;
        }
    }
}

/* ---- the OpenAPI enums ---- */

static const json_t *schema(const json_t *spec, const char *name)
{
    return json_object_get(json_object_get(json_object_get(spec, "components"), "schemas"),
                           name);
}

static int in_list(const char *const *list, const char *s)
{
    for (; list && *list; list++) {
        if (strcmp(*list, s) == 0) {
            return 1;
        }
    }
    return 0;
}

static int in_array(const json_t *arr, const char *s)
{
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v) {
        if (json_is_string(v) && strcmp(json_string_value(v), s) == 0) {
            return 1;
        }
    }
    return 0;
}

/* An enum and a NULL-terminated list hold the same names. */
static void same_names(problems *pr, const char *what, const json_t *en,
                       const char *const *list, const char *declared_in)
{
    size_t i;
    json_t *v;
    if (!json_is_array(en)) {
        problem(pr, "docs/openapi.yaml: %s has no enum", what);
        return;
    }
    json_array_foreach(en, i, v) {
        if (!in_list(list, json_string_value(v))) {
            problem(pr, "docs/openapi.yaml: %s lists %s, which %s does not declare", what,
                    json_string_value(v), declared_in);
        }
    }
    for (; list && *list; list++) {
        if (!in_array(en, *list)) {
            problem(pr, "docs/openapi.yaml: %s lacks %s (declared by %s)", what, *list,
                    declared_in);
        }
    }
}

/* Every name of list matches the schema's pattern (a POSIX ERE). */
static void matches_pattern(problems *pr, const char *what, const char *pattern,
                            const char *const *list)
{
    regex_t re;
    if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) != 0) {
        problem(pr, "docs/openapi.yaml: %s's pattern %s does not compile", what, pattern);
        return;
    }
    for (; list && *list; list++) {
        if (regexec(&re, *list, 0, NULL, 0) != 0) {
            problem(pr, "docs/openapi.yaml: %s's pattern %s refuses %s", what, pattern, *list);
        }
    }
    regfree(&re);
}

/* Where the spec lists each family's event types. */
static const struct {
    const char *family;
    const char *schema;
    const char *property; /* the enum is this property's; NULL: the schema's own */
} event_enums[] = {
    {"flight", "FlightEventType", NULL},
    {"hotel", "HotelEventType", NULL},
    {"travel", "WatcherEvent", "type"},
};

static const char *const test_event_families[] = {"flight", "hotel"};

static void check_event_types(apr_pool_t *p, const trv_registry *reg, const json_t *spec,
                              problems *pr)
{
    apr_array_header_t *all = apr_array_make(p, 16, sizeof(const char *));
    const json_t *hooks = json_object_get(spec, "webhooks");
    const char *key;
    json_t *v;
    size_t e;
    int i;
    for (i = 0; i < trv_registry_domain_count(reg); i++) {
        const char *family = trv_domain_family(trv_registry_domain_at(reg, i));
        const char *const *types = trv_registry_event_types(reg, family);
        const json_t *en = NULL;
        int found = 0;
        for (e = 0; e < sizeof(event_enums) / sizeof(event_enums[0]); e++) {
            if (strcmp(event_enums[e].family, family) == 0) {
                const json_t *s = schema(spec, event_enums[e].schema);
                en = event_enums[e].property
                         ? json_object_get(json_object_get(json_object_get(s, "properties"),
                                                           event_enums[e].property),
                                           "enum")
                         : json_object_get(s, "enum");
                found = 1;
                same_names(pr, event_enums[e].schema, en,
                           types, apr_pstrcat(p, "the ", family, " family", NULL));
            }
        }
        if (!found && types[0]) {
            problem(pr, "the %s family emits events but no OpenAPI enum lists them "
                    "(add it to event_enums)", family);
        }
        for (; *types; types++) {
            APR_ARRAY_PUSH(all, const char *) = *types;
        }
    }
    /* The webhook domain's test event ("Send a test event",
     * webhook/test_event.h), offered on these families' subscriptions. */
    for (e = 0; e < sizeof(test_event_families) / sizeof(test_event_families[0]); e++) {
        APR_ARRAY_PUSH(all, const char *) =
            apr_pstrcat(p, test_event_families[e], TRV_WEBHOOK_TEST_SUFFIX, NULL);
    }
    APR_ARRAY_PUSH(all, const char *) = NULL;
    /* The webhooks section documents every event type, and only those. */
    json_object_foreach((json_t *)hooks, key, v) {
        if (!in_list((const char *const *)all->elts, key)) {
            problem(pr, "docs/openapi.yaml: webhooks documents %s, which no domain registers",
                    key);
        }
    }
    for (i = 0; i < all->nelts - 1; i++) {
        if (!json_object_get(hooks, APR_ARRAY_IDX(all, i, const char *))) {
            problem(pr, "docs/openapi.yaml: webhooks lacks %s",
                    APR_ARRAY_IDX(all, i, const char *));
        }
    }
}

/* The supplier lines of a configuration: "TravelSupplier NAME PROTOCOL"
 * (flight) and "TravelHotelSupplier NAME PROTOCOL" (hotel). Pushes
 * (domain, name, protocol) triples. */
static apr_array_header_t *supplier_lines(apr_pool_t *p, const char *conf)
{
    apr_array_header_t *out = apr_array_make(p, 8, sizeof(const char *));
    const char *line = conf;
    while (line && *line) {
        const char *next = strchr(line, '\n');
        char dir[32], name[64], proto[64];
        while (*line == ' ' || *line == '\t') {
            line++;
        }
        if (sscanf(line, "%31s %63s %63s", dir, name, proto) == 3
            && (strcmp(dir, "TravelSupplier") == 0 || strcmp(dir, "TravelHotelSupplier") == 0)) {
            APR_ARRAY_PUSH(out, const char *) = dir[6] == 'H' ? "hotel" : "flight";
            APR_ARRAY_PUSH(out, const char *) = apr_pstrdup(p, name);
            APR_ARRAY_PUSH(out, const char *) = apr_pstrdup(p, proto);
        }
        line = next ? next + 1 : NULL;
    }
    return out;
}

/* Protocols the default test stack does not bind (its suppliers and
 * hotels are counted by other tests): the e2e test that gives one an
 * instance of its own, which must name it. */
static const struct {
    const char *protocol, *test;
} bound_elsewhere[] = {
    {"duffel-stays", "tests/e2e/test_hotel_duffel_stays.c"},
    {NULL, NULL},
};

static int file_mentions(apr_pool_t *p, const char *path, const char *word)
{
    const char *text = slurp(p, root_path(p, path));
    return text && strstr(text, word) != NULL;
}

static void check_suppliers(apr_pool_t *p, const trv_registry *reg, const json_t *spec,
                            const char *stack_conf, const char *example_conf, problems *pr)
{
    static const struct {
        const char *domain, *schema;
    } enums[] = {{"flight", "FlightSupplier"}, {"hotel", "HotelSupplier"}};
    apr_array_header_t *stack = supplier_lines(p, stack_conf);
    apr_array_header_t *example = supplier_lines(p, example_conf);
    size_t e;
    int i, k;
    for (e = 0; e < sizeof(enums) / sizeof(enums[0]); e++) {
        apr_array_header_t *names = apr_array_make(p, 4, sizeof(const char *));
        const trv_domain *d = trv_registry_domain(reg, enums[e].domain);
        const trv_supplier *row;
        for (i = 0; i + 2 < stack->nelts; i += 3) {
            if (strcmp(APR_ARRAY_IDX(stack, i, const char *), enums[e].domain) == 0) {
                APR_ARRAY_PUSH(names, const char *) = APR_ARRAY_IDX(stack, i + 1, const char *);
            }
        }
        APR_ARRAY_PUSH(names, const char *) = NULL;
        if (json_is_string(json_object_get(schema(spec, enums[e].schema), "pattern"))) {
            /* Any wire name a site chooses: the stack's names must match it. */
            matches_pattern(pr, enums[e].schema,
                            json_string_value(json_object_get(schema(spec, enums[e].schema),
                                                              "pattern")),
                            (const char *const *)names->elts);
        }
        else {
            same_names(pr, enums[e].schema,
                       json_object_get(schema(spec, enums[e].schema), "enum"),
                       (const char *const *)names->elts,
                       apr_pstrcat(p, "conf/stack.conf.in's ", enums[e].domain, " lines",
                                   NULL));
        }
        /* Every protocol is bound in the test stack: the e2e tests reach it. */
        for (row = d ? d->suppliers : NULL; row && row->name; row++) {
            int bound = 0;
            for (i = 0; i + 2 < stack->nelts; i += 3) {
                /* An alias (a protocol's former name) is bound with the
                 * protocol whose adapter it names. */
                const trv_supplier *used =
                    trv_supplier_find(d->suppliers, APR_ARRAY_IDX(stack, i + 2, const char *));
                bound |= used && trv_supplier_primary(d->suppliers, used)
                                     == trv_supplier_primary(d->suppliers, row);
            }
            for (k = 0; !bound && bound_elsewhere[k].protocol; k++) {
                bound = strcmp(bound_elsewhere[k].protocol, row->name) == 0
                        && file_mentions(p, bound_elsewhere[k].test, row->name);
            }
            if (!bound) {
                problem(pr, "conf/stack.conf.in binds no line to the %s protocol %s",
                        enums[e].domain, row->name);
            }
        }
    }
    for (e = 0; e < 2; e++) {
        apr_array_header_t *lines = e ? example : stack;
        for (i = 0; i + 2 < lines->nelts; i += 3) {
            const char *domain = APR_ARRAY_IDX(lines, i, const char *);
            const char *proto = APR_ARRAY_IDX(lines, i + 2, const char *);
            if (!trv_registry_protocol(reg, domain, proto)) {
                problem(pr, "%s: %s binds the protocol %s, which the %s domain does not "
                        "register", e ? "conf/travel.conf" : "conf/stack.conf.in",
                        APR_ARRAY_IDX(lines, i + 1, const char *), proto, domain);
            }
        }
    }
}

/* ---- includes between domains ---- */

/* The headers the "### Interfaces between domains" section of the
 * architecture document names (`x/y.h`). */
static apr_hash_t *interfaces_declared(apr_pool_t *p, const char *doc)
{
    apr_hash_t *out = apr_hash_make(p);
    const char *s = strstr(doc, "\n### Interfaces between domains\n"), *end;
    if (!s) {
        return out;
    }
    s += 2;
    end = strstr(strchr(s, '\n'), "\n#");
    end = end ? end : s + strlen(s);
    while ((s = strchr(s, '`')) && s < end) {
        const char *close = strchr(s + 1, '`');
        const char *h = close ? apr_pstrndup(p, s + 1, (apr_size_t)(close - s - 1)) : "";
        size_t n = strlen(h);
        if (n > 2 && strcmp(h + n - 2, ".h") == 0 && strchr(h, '/')) {
            apr_hash_set(out, h, APR_HASH_KEY_STRING, h);
        }
        s = close ? close + 1 : end;
    }
    return out;
}

static const char *const domains[] = {"account", "flight", "hotel", "payment", "lifecycle",
                                      "webhook", "watch", "dashboard", "gateway", NULL};

static void check_includes(apr_pool_t *p, const apr_array_header_t *sources, const char *doc,
                           problems *pr)
{
    apr_hash_t *declared = interfaces_declared(p, doc);
    int i;
    if (apr_hash_count(declared) == 0) {
        problem(pr, "docs/architecture.md has no \"### Interfaces between domains\" list");
    }
    for (i = 0; i < sources->nelts; i++) {
        const source *s = &APR_ARRAY_IDX(sources, i, source);
        const char *slash = strchr(s->name, '/'), *m = s->text;
        const char *own = slash ? apr_pstrndup(p, s->name, (apr_size_t)(slash - s->name)) : "";
        if (!in_list(domains, own)) {
            continue; /* core/ is everyone's; httpd/, cli/ and sandbox/ are the programs */
        }
        while ((m = strstr(m, "#include \""))) {
            const char *h = m + 10, *q = strchr(h, '"');
            const char *header = q ? apr_pstrndup(p, h, (apr_size_t)(q - h)) : "";
            const char *hs = strchr(header, '/');
            const char *dir = hs ? apr_pstrndup(p, header, (apr_size_t)(hs - header)) : NULL;
            if (dir && strcmp(dir, own) != 0 && strcmp(dir, "core") != 0
                && !apr_hash_get(declared, header, APR_HASH_KEY_STRING)) {
                problem(pr, "%s:%d includes %s, which docs/architecture.md does not declare "
                        "an interface between domains", s->name, line_of(s->text, m), header);
            }
            m = h;
        }
    }
}

/* ---- fixtures ---- */

static const trv_registry *gateway_registry(apr_pool_t *p)
{
    trv_gateway *gw = NULL;
    const char *err = NULL;
    assert_int_equal(trv_gateway_make(p, &gw, &err), APR_SUCCESS);
    return trv_gateway_registry(gw);
}

static json_t *load_spec(apr_pool_t *p)
{
    const char *path = getenv("TRAVEL_OPENAPI"), *err = NULL;
    json_t *spec;
    if (!path) {
        path = root_path(p, "docs/openapi.yaml");
    }
    spec = load_yaml(path, &err);
    if (!spec) {
        print_error("%s: %s (run from the checkout's root, or set TRAVEL_SOURCE_ROOT)\n", path,
                    err);
    }
    assert_non_null(spec);
    return spec;
}

static char *read_root(apr_pool_t *p, const char *rel)
{
    char *text = slurp(p, root_path(p, rel));
    if (!text) {
        print_error("%s cannot be read (run from the checkout's root, or set "
                    "TRAVEL_SOURCE_ROOT)\n", rel);
    }
    assert_non_null(text);
    return text;
}

static apr_array_header_t *sources_of(apr_pool_t *p)
{
    static const char *const exts[] = {".c", ".h", NULL};
    apr_array_header_t *out = apr_array_make(p, 512, sizeof(source));
    read_tree(p, root_path(p, "mod_travel"), NULL, 1, exts, 0, out);
    assert_true(out->nelts > 100);
    return out;
}

static apr_array_header_t *migrations_of(apr_pool_t *p)
{
    static const char *const exts[] = {".sql", NULL};
    apr_array_header_t *out = apr_array_make(p, 64, sizeof(source));
    read_tree(p, root_path(p, "sql"), NULL, 0, exts, 1, out);
    assert_true(out->nelts > 10);
    return out;
}

static void add_source(apr_pool_t *p, apr_array_header_t *a, const char *name, const char *text,
                       int sql)
{
    source *s = apr_array_push(a);
    s->name = name;
    s->text = sql ? blank_sql_comments(p, text) : blank_c_comments(p, text);
}

/* ---- the tree as it is ---- */

static void log_tags_are_declared_once(void **state)
{
    apr_pool_t *p = *state;
    problems *pr = problems_new(p);
    check_tags(p, sources_of(p), read_root(p, "docs/log-tags.md"), pr);
    assert_none(pr);
}

static void migrations_queue_registered_kinds(void **state)
{
    apr_pool_t *p = *state;
    problems *pr = problems_new(p);
    check_sql_jobs(p, gateway_registry(p), migrations_of(p), pr);
    assert_none(pr);
}

static void openapi_lists_the_registered_event_types(void **state)
{
    apr_pool_t *p = *state;
    problems *pr = problems_new(p);
    json_t *spec = load_spec(p);
    check_event_types(p, gateway_registry(p), spec, pr);
    json_decref(spec);
    assert_none(pr);
}

static void openapi_lists_the_bound_suppliers(void **state)
{
    apr_pool_t *p = *state;
    problems *pr = problems_new(p);
    json_t *spec = load_spec(p);
    check_suppliers(p, gateway_registry(p), spec, read_root(p, "conf/stack.conf.in"),
                    read_root(p, "conf/travel.conf"), pr);
    json_decref(spec);
    assert_none(pr);
}

static void domains_include_only_declared_interfaces(void **state)
{
    apr_pool_t *p = *state;
    problems *pr = problems_new(p);
    check_includes(p, sources_of(p), read_root(p, "docs/architecture.md"), pr);
    assert_none(pr);
}

/* ---- the checkers catch drift ---- */

static void include_drift_is_caught(void **state)
{
    apr_pool_t *p = *state;
    apr_array_header_t *src = apr_array_make(p, 4, sizeof(source));
    problems *pr = problems_new(p);
    add_source(p, src, "hotel/prebook.c",
               "#include \"prebook.h\"\n#include \"hotel/hotel_store.h\"\n#include \"core/json.h\"\n"
               "#include \"webhook/outbox.h\"\n#include \"flight/input.h\"\n"
               "/* #include \"flight/owner.h\" in a comment */\n", 0);
    add_source(p, src, "httpd/glue.c", "#include \"hotel/booking_store.h\"\n", 0);
    check_includes(p, src,
                   "# Architecture\n### Interfaces between domains\n- `webhook/outbox.h`: events\n"
                   "## Next\n- `flight/input.h` is not in the section\n", pr);
    assert_true(has_problem(pr, "hotel/prebook.c:5 includes flight/input.h, which "
                                "docs/architecture.md does not declare"));
    assert_int_equal(pr->list->nelts, 1);
    pr = problems_new(p);
    check_includes(p, src, "# Architecture\n", pr);
    assert_true(has_problem(pr, "has no \"### Interfaces between domains\" list"));
}


static void tag_drift_is_caught(void **state)
{
    apr_pool_t *p = *state;
    apr_array_header_t *src = apr_array_make(p, 4, sizeof(source));
    problems *pr = problems_new(p);
    add_source(p, src, "a/log.h", "void a_fail(int x, int logno, const char *what);\n", 0);
    add_source(p, src, "a/one.c",
               "static void local_fail(trv_req *r, int logno) { }\n"
               "void f(void) {\n"
               "    log(TRVLOGNO(5) \"one %s\" \"!\", x);\n"
               "    log(TRVLOGNO(5) \"two %s\", x);\n"
               "    local_fail(r, 6);\n"
               "    a_fail(1, 7, \"reading\");\n"
               "    /* TRVLOGNO(99) in a comment is no use */\n"
               "    x.a_fail(1, 98, \"a member of that name is not the function\");\n"
               "}\n", 0);
    add_source(p, src, "a/two.c",
               "static void local_fail(int logno, trv_req *r) { }\n"
               "void g(void) { a_fail(2, 7, \"again\"); local_fail(8, r);\n"
               "    local_fail(logno, r); }\n",
               0);
    check_tags(p, src,
               "| TRV5 | a/one.c | `one` |\n"
               "| TRV6 | a/one.c | `six` |\n"
               "| TRV6 | a/one.c | `six again` |\n"
               "| TRV7 | a/one.c | `seven` |\n"
               "| TRV8 | a/one.c | `eight` |\n"
               "| TRV9 | a/two.c | `nine` |\n", pr);
    assert_true(has_problem(pr, "TRV5 is logged with two messages in a/one.c "
                                "(line 4: \"two %s\")"));
    assert_true(has_problem(pr, "TRV6 is declared twice"));
    assert_true(has_problem(pr, "TRV7 is used by two files"));
    /* Each file's own local_fail: its number's position is its own. */
    assert_true(has_problem(pr, "TRV8 is declared for a/one.c but logged by a/two.c:2"));
    assert_true(has_problem(pr, "TRV9 is declared in docs/log-tags.md but nothing logs it"));
    assert_int_equal(pr->list->nelts, 5);
    /* Undeclared; only the logno argument counts, and not in a comment
     * nor through a member of the same name. */
    pr = problems_new(p);
    check_tags(p, src, "| TRV5 | a/one.c | `one` |\n", pr);
    assert_true(has_problem(pr, "TRV6 (a/one.c:5) is not declared in docs/log-tags.md"));
    assert_true(has_problem(pr, "TRV7 (a/one.c:6) is not declared"));
    assert_true(has_problem(pr, "TRV8 (a/two.c:2) is not declared"));
    assert_false(has_problem(pr, "TRV99"));
    assert_false(has_problem(pr, "TRV98"));
    assert_false(has_problem(pr, "TRV1 ("));
    assert_false(has_problem(pr, "TRV2 ("));
    /* A function of two numbers (one for each step it answers for): both
     * count, the argument between them does not. A table's number given by
     * name counts; another field's, a comparison and a name that only reads
     * a number do not. */
    src = apr_array_make(p, 2, sizeof(source));
    add_source(p, src, "a/three.c",
               "static void two_fail(int logno_open, int x, int logno_read) { }\n"
               "void h(void) { two_fail(10, 3, 11); }\n", 0);
    add_source(p, src, "a/four.c",
               "const t tab = {f, 20, .list_logno_open = 12, .width = 13,\n"
               "    .get_logno_read=14};\n"
               "void k(void) { if (r.get_logno_open == 15) x(r->list_logno_open); }\n", 0);
    pr = problems_new(p);
    check_tags(p, src, "| TRV5 | a/one.c | `one` |\n| TRV14 | a/four.c | `fourteen` |\n", pr);
    assert_true(has_problem(pr, "TRV10 (a/three.c:2) is not declared"));
    assert_true(has_problem(pr, "TRV11 (a/three.c:2) is not declared"));
    assert_false(has_problem(pr, "TRV3 ("));
    assert_true(has_problem(pr, "TRV12 (a/four.c:1) is not declared"));
    assert_false(has_problem(pr, "TRV14"));
    assert_false(has_problem(pr, "TRV13"));
    assert_false(has_problem(pr, "TRV15"));
    assert_false(has_problem(pr, "TRV20"));
}

static void sql_drift_is_caught(void **state)
{
    apr_pool_t *p = *state;
    const trv_registry *reg = gateway_registry(p);
    apr_array_header_t *sql = apr_array_make(p, 4, sizeof(source));
    problems *pr = problems_new(p);
    add_source(p, sql, "001_a.sql",
               "-- INSERT INTO jobs (kind, max_attempts) VALUES ('in.a.comment', 1);\n"
               "CREATE FUNCTION q() RETURNS trigger LANGUAGE plpgsql AS $$\n"
               "BEGIN\n"
               "    INSERT INTO jobs (kind, payload, available_at, max_attempts, dedupe_key)\n"
               "    SELECT 'flight.booking.render', jsonb_build_object('id', n.id, 'r', 1),\n"
               "           clock_timestamp(), 4, 'x' FROM new_rows n;\n"
               "    RETURN NULL;\n"
               "END $$;\n"
               "CREATE FUNCTION r() RETURNS trigger LANGUAGE plpgsql AS $$\n"
               "BEGIN\n"
               "    INSERT INTO jobs (kind, payload, available_at, max_attempts)\n"
               "    VALUES ('flight.order.sync', '{}', now(), 9);\n"
               "END $$;\n"
               "INSERT INTO jobs (kind, payload, max_attempts)\n"
               "SELECT 'no.such.kind', '{}'::jsonb, 3 ON CONFLICT DO NOTHING;\n"
               "SELECT 1 FROM jobs j WHERE j.kind = 'nor.this';\n"
               "INSERT INTO jobs (kind, payload, max_attempts) SELECT p_kind, '{}', 2;\n"
               "INSERT INTO jobs (kind, payload, max_attempts)\n"
               "    VALUES ('flight.booking.expire', '{}', 4);\n",
               1);
    /* r() is redefined later, and flight.booking.expire queued again:
     * the first limits are history. */
    add_source(p, sql, "002_b.sql",
               "CREATE OR REPLACE FUNCTION r() RETURNS trigger LANGUAGE plpgsql AS $$\n"
               "BEGIN\n"
               "    INSERT INTO jobs (kind, payload, available_at, max_attempts)\n"
               "    VALUES ('flight.order.sync', '{}', now(), 3);\n"
               "END $$;\n"
               "CREATE TRIGGER t AFTER INSERT ON x FOR EACH ROW EXECUTE FUNCTION q();\n"
               "INSERT INTO jobs (kind, payload, max_attempts)\n"
               "    VALUES ('flight.booking.expire', '{}', 10);\n", 1);
    check_sql_jobs(p, reg, sql, pr);
    assert_true(has_problem(pr, "sql/001_a.sql:4: 'flight.booking.render' is queued with "
                                "max_attempts 4, registered with 5"));
    assert_true(has_problem(pr, "sql/001_a.sql:14: job kind 'no.such.kind' is not a "
                                "registered kind"));
    assert_true(has_problem(pr, "sql/001_a.sql:16: job kind 'nor.this'"));
    assert_false(has_problem(pr, "flight.order.sync"));
    assert_false(has_problem(pr, "flight.booking.expire"));
    assert_false(has_problem(pr, "in.a.comment"));
    assert_int_equal(pr->list->nelts, 3);
}

static void enum_drift_is_caught(void **state)
{
    apr_pool_t *p = *state;
    const trv_registry *reg = gateway_registry(p);
    json_t *spec = load_spec(p);
    json_t *schemas = json_object_get(json_object_get(spec, "components"), "schemas");
    problems *pr = problems_new(p);

    /* An event type the code does not emit, one it emits missing, and a
     * webhook documented for nothing. */
    json_array_append_new(json_object_get(json_object_get(schemas, "FlightEventType"), "enum"),
                          json_string("flight.booking.lost"));
    json_array_remove(json_object_get(json_object_get(schemas, "HotelEventType"), "enum"), 0);
    json_object_set_new(json_object_get(spec, "webhooks"), "hotel.booking.lost", json_object());
    json_object_del(json_object_get(spec, "webhooks"), "travel.hotel.watch.purchased");
    check_event_types(p, reg, spec, pr);
    assert_true(has_problem(pr, "FlightEventType lists flight.booking.lost, which the flight "
                                "family does not declare"));
    assert_true(has_problem(pr, "HotelEventType lacks hotel.booking.confirmed"));
    assert_true(has_problem(pr, "webhooks documents hotel.booking.lost"));
    assert_true(has_problem(pr, "webhooks lacks travel.hotel.watch.purchased"));
    assert_int_equal(pr->list->nelts, 4);

    /* A wire name the stack does not bind, a protocol nobody registers,
     * and a protocol the stack leaves out. */
    pr = problems_new(p);
    json_array_append_new(json_object_get(json_object_get(schemas, "FlightSupplier"), "enum"),
                          json_string("SUPPLIER_Z"));
    check_suppliers(p, reg, spec,
                    "TravelSupplier SUPPLIER_A duffel http://x token=t\n"
                    "TravelSupplier SUPPLIER_B liteapi-flights http://x api_key=k\n"
                    "  TravelHotelSupplier SUPPLIER_A liteapi http://x api_key=k\n"
                    "TravelHotelSupplier SUPPLIER_B travel-hotel-b http://x api_key=k\n"
                    "TravelHotelSupplier SUPPLIER_C sabre-hotels http://x api_key=k\n",
                    "TravelSupplier DUFFEL duffel https://api.duffel.com token=t\n"
                    "TravelSupplier OTHER sabre https://x api_key=k\n", pr);
    assert_true(has_problem(pr, "FlightSupplier lists SUPPLIER_Z"));
    assert_true(has_problem(pr, "conf/stack.conf.in: SUPPLIER_C binds the protocol "
                                "sabre-hotels, which the hotel domain does not register"));
    assert_true(has_problem(pr, "conf/stack.conf.in binds no line to the hotel protocol "
                                "expedia-rapid"));
    /* ... nor to its former name, an alias of the same adapter. */
    assert_true(has_problem(pr, "conf/stack.conf.in binds no line to the hotel protocol "
                                "travel-hotel-c"));
    assert_true(has_problem(pr, "conf/travel.conf: OTHER binds the protocol sabre"));
    assert_int_equal(pr->list->nelts, 5);
    json_decref(spec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(log_tags_are_declared_once, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(migrations_queue_registered_kinds, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(openapi_lists_the_registered_event_types, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(openapi_lists_the_bound_suppliers, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(domains_include_only_declared_interfaces, pool_setup,
                                        pool_teardown),
        cmocka_unit_test_setup_teardown(tag_drift_is_caught, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(include_drift_is_caught, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(sql_drift_is_caught, pool_setup, pool_teardown),
        cmocka_unit_test_setup_teardown(enum_drift_is_caught, pool_setup, pool_teardown),
    };
    return UNIT_RUN(tests);
}
