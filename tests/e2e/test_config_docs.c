/* The configuration reference is complete and true: every directive the two
 * modules register (as `apache2 -L` lists them) has its row in
 * docs/configuration.md and no row names a directive that does not exist;
 * every mod_travel directive appears in conf/travel.conf; and
 * conf/travel.conf, the production example, passes `apache2 -t` (with its
 * key files replaced by generated ones). */
#include "e2e.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char root[2048], dir[2048];

static void paths(void)
{
    /* The checkout is two levels above bin/travelctl. */
    snprintf(root, sizeof(root), "%s", e2e_env("TRAVEL_TEST_TRAVELCTL"));
    *strrchr(root, '/') = '\0';
    *strrchr(root, '/') = '\0';
    snprintf(dir, sizeof(dir), "%s/config-docs", e2e_env("TRAVEL_TEST_DIR"));
    mkdir(dir, 0755);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *s;
    long n;
    if (!f) {
        fail_msg("cannot read %s", path);
    }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    s = malloc((size_t)n + 1);
    s[fread(s, 1, (size_t)n, f)] = '\0';
    fclose(f);
    return s;
}

/* A configuration that loads the modules of test instances a (mod_travel)
 * and sandbox (mod_travel_sandbox), each once, and nothing of their own:
 * the base for -L and -t. Returns its path (static). */
static const char *base_conf(const char *extra)
{
    static const char *const instances[] = {"a", "sandbox"};
    static char path[4096];
    char line[4096], src[4096], loaded[8192] = " ";
    FILE *in, *out;
    size_t i;
    snprintf(path, sizeof(path), "%s/base.conf", dir);
    out = fopen(path, "w");
    assert_non_null(out);
    fprintf(out, "ServerRoot \"%s\"\nDefaultRuntimeDir \"%s\"\nPidFile \"%s/httpd.pid\"\n"
            "ErrorLog \"%s/error.log\"\nServerName 127.0.0.1\nListen 127.0.0.1:1\n", dir, dir,
            dir, dir);
    for (i = 0; i < sizeof(instances) / sizeof(instances[0]); i++) {
        snprintf(src, sizeof(src), "%s/httpd-%s/httpd.conf", e2e_env("TRAVEL_TEST_DIR"),
                 instances[i]);
        in = fopen(src, "r");
        assert_non_null(in);
        while (fgets(line, sizeof(line), in)) {
            char name[128], key[160];
            if (sscanf(line, "LoadModule %127s", name) != 1) {
                continue;
            }
            snprintf(key, sizeof(key), " %s ", name);
            if (!strstr(loaded, key) && strlen(loaded) + strlen(key) < sizeof(loaded)) {
                strcat(loaded, key + 1);
                fputs(line, out);
            }
        }
        fclose(in);
    }
    fprintf(out, "%s\n", extra);
    fclose(out);
    return path;
}

/* Runs a command; its exit status, and what it printed in out. */
static int run(const char *cmd, char *out, size_t n)
{
    FILE *p = popen(cmd, "r");
    size_t len = 0;
    out[0] = '\0';
    while (p && len < n - 1 && fgets(out + len, (int)(n - len), p)) {
        len = strlen(out);
    }
    return pclose(p);
}

typedef struct directive {
    char name[64];
    int sandbox;
} directive;

/* The Travel* directives apache2 -L lists for the loaded modules. */
static int registered(directive *d, int max)
{
    static char out[65536];
    char cmd[8192], *line, *save;
    int n = 0;
    snprintf(cmd, sizeof(cmd), "%s -L -f %s 2>&1", e2e_apache2(), base_conf(""));
    assert_int_equal(run(cmd, out, sizeof(out)), 0);
    for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char name[64], module[64];
        if (strncmp(line, "Travel", 6) == 0 && n < max
            && sscanf(line, "%63s (%63[^)])", name, module) == 2) {
            snprintf(d[n].name, sizeof(d[n].name), "%s", name);
            d[n].sandbox = strcmp(module, "mod_travel_sandbox.c") == 0;
            n++;
        }
    }
    return n;
}

static void every_directive_has_its_row(void **state)
{
    directive d[64];
    char path[4096], row[128], *doc, *s;
    int n, i, mod = 0, sbx = 0;
    (void)state;
    paths();
    n = registered(d, 64);
    snprintf(path, sizeof(path), "%s/docs/configuration.md", root);
    doc = slurp(path);
    for (i = 0; i < n; i++) {
        snprintf(row, sizeof(row), "\n| `%.63s` |", d[i].name);
        if (!strstr(doc, row)) {
            fail_msg("%s is registered but has no row in docs/configuration.md", d[i].name);
        }
        d[i].sandbox ? sbx++ : mod++;
    }
    /* Both modules were seen, so the check is not vacuous. */
    assert_true(mod >= 10);
    assert_true(sbx >= 8);
    /* And no row documents a directive that does not exist. */
    for (s = strstr(doc, "\n| `Travel"); s; s = strstr(s + 1, "\n| `Travel")) {
        char name[64];
        int found = 0;
        if (sscanf(s, "\n| `%63[A-Za-z]`", name) != 1) {
            continue;
        }
        for (i = 0; i < n; i++) {
            found |= strcmp(d[i].name, name) == 0;
        }
        if (!found) {
            fail_msg("docs/configuration.md documents %s, which no module registers", name);
        }
    }
    free(doc);
}

static void travel_conf_shows_every_directive(void **state)
{
    directive d[64];
    char path[4096], *conf;
    int n, i;
    (void)state;
    paths();
    n = registered(d, 64);
    snprintf(path, sizeof(path), "%s/conf/travel.conf", root);
    conf = slurp(path);
    for (i = 0; i < n; i++) {
        char line[128], commented[128];
        if (d[i].sandbox) {
            continue; /* test mode: never in a production configuration */
        }
        snprintf(line, sizeof(line), "\n%.63s ", d[i].name);
        snprintf(commented, sizeof(commented), "\n# %.63s ", d[i].name);
        if (!strstr(conf, line) && !strstr(conf, commented)) {
            fail_msg("conf/travel.conf does not show %s", d[i].name);
        }
    }
    free(conf);
}

static void travel_conf_passes_configtest(void **state)
{
    char src[4096], copy[4096], secrets[4096], cmd[8192], out[8192], extra[4200];
    char *conf, *s, *mark;
    FILE *f;
    int files = 0;
    const char *from = "/etc/apache2/secrets/";
    (void)state;
    paths();
    snprintf(src, sizeof(src), "%s/conf/travel.conf", root);
    conf = slurp(src);
    snprintf(secrets, sizeof(secrets), "%s/secrets/", dir);
    mkdir(secrets, 0700);
    snprintf(copy, sizeof(copy), "%s/travel.conf", dir);
    f = fopen(copy, "w");
    assert_non_null(f);
    /* The example's key files live under /etc/apache2/secrets/: make each
     * one here (64 hex digits do for a bearer key and the secret key). */
    for (s = conf; (mark = strstr(s, from)); s = mark + strlen(from)) {
        char name[256], key[4400];
        FILE *k;
        fwrite(s, 1, (size_t)(mark - s), f);
        fputs(secrets, f);
        if (sscanf(mark + strlen(from), "%255[A-Za-z0-9._-]", name) == 1) {
            snprintf(key, sizeof(key), "%s%s", secrets, name);
            k = fopen(key, "w");
            assert_non_null(k);
            fputs("00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n", k);
            fclose(k);
            files++;
        }
    }
    fputs(s, f);
    fclose(f);
    free(conf);
    assert_true(files >= 4); /* three upstream keys and the secret key */
    snprintf(extra, sizeof(extra), "Include \"%s\"", copy);
    snprintf(cmd, sizeof(cmd), "%s -t -f %s 2>&1", e2e_apache2(), base_conf(extra));
    if (run(cmd, out, sizeof(out)) != 0 || !strstr(out, "Syntax OK")) {
        fail_msg("conf/travel.conf fails configtest: %s", out);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_directive_has_its_row),
        cmocka_unit_test(travel_conf_shows_every_directive),
        cmocka_unit_test(travel_conf_passes_configtest),
    };
    return E2E_RUN("config docs", tests);
}
