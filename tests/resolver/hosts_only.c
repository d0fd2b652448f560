/* The test runs' resolver: preloaded (LD_PRELOAD) into every process the
 * test scripts start (the unit and e2e test binaries, httpd and its
 * children, curl, psql), never built into mod_travel. Tests reach only
 * loopback, so no test may make the system resolver send a DNS query out
 * of the machine for a made-up name; this makes that impossible instead of
 * merely unlikely:
 *
 *   - numeric addresses resolve as always (with AI_NUMERICHOST: no lookup);
 *   - "localhost" (and names under it) is loopback, answered here, and so
 *     is this machine's own name (httpd without a ServerName, as Debian's
 *     stock configuration in the install test, looks it up);
 *   - names listed in TRAVEL_TEST_HOSTS ("name=address ...", space
 *     separated) resolve to their address, answered here;
 *   - any other name does not resolve (EAI_NONAME / HOST_NOT_FOUND) and is
 *     appended to the file TRAVEL_TEST_DNS_LOG (stderr when unset), so the
 *     test scripts fail the run on a lookup nobody expected;
 *   - reverse lookups (getnameinfo, gethostbyaddr) answer numerically
 *     (loopback: "localhost"), never through DNS.
 *
 * mod_travel resolves webhook hosts with apr_sockaddr_info_get (getaddrinfo)
 * and libcurl with getaddrinfo, so both meet this table. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

typedef int (*gai_fn)(const char *, const char *, const struct addrinfo *,
                      struct addrinfo **);
typedef int (*gni_fn)(const struct sockaddr *, socklen_t, char *, socklen_t, char *,
                      socklen_t, int);
typedef struct hostent *(*ghbn_fn)(const char *);
typedef struct hostent *(*ghbn2_fn)(const char *, int);
typedef int (*ghbnr_fn)(const char *, struct hostent *, char *, size_t, struct hostent **,
                        int *);
typedef int (*ghbn2r_fn)(const char *, int, struct hostent *, char *, size_t,
                         struct hostent **, int *);

static void *real(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

/* One line per refused name, appended whole (O_APPEND) from any process. */
static void record(const char *call, const char *name)
{
    char line[600];
    const char *path = getenv("TRAVEL_TEST_DNS_LOG");
    int n = snprintf(line, sizeof(line), "%s %s\n", name, call), fd;
    if (n <= 0) {
        return;
    }
    if (n >= (int)sizeof(line)) {
        n = (int)sizeof(line) - 1;
        line[n - 1] = '\n';
    }
    fd = path && *path ? open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666) : 2;
    if (fd >= 0) {
        if (write(fd, line, (size_t)n) < 0) {
            /* nothing more to do: the lookup is refused either way */
        }
        if (fd != 2) {
            close(fd);
        }
    }
}

static int is_numeric(const char *name)
{
    unsigned char buf[16];
    struct in_addr v4;
    return inet_aton(name, &v4) != 0 || inet_pton(AF_INET6, name, buf) == 1;
}

/* The address text for a name (loopback or the table), or NULL. */
static int is_own_name(const char *name)
{
    char self[256];
    if (gethostname(self, sizeof(self)) != 0) {
        return 0;
    }
    self[sizeof(self) - 1] = '\0';
    return self[0] && strcasecmp(name, self) == 0;
}

static const char *lookup(const char *name, int family, char *out, size_t outlen)
{
    size_t len = strlen(name);
    const char *table, *p;
    char want[256];
    if (len == 0 || len >= sizeof(want)) {
        return NULL;
    }
    memcpy(want, name, len + 1);
    if (want[len - 1] == '.') {
        want[--len] = '\0';
    }
    if (strcasecmp(want, "localhost") == 0
        || (len > 10 && strcasecmp(want + len - 10, ".localhost") == 0)
        || is_own_name(want)) {
        return family == AF_INET6 ? "::1" : "127.0.0.1";
    }
    table = getenv("TRAVEL_TEST_HOSTS");
    for (p = table; p && *p;) {
        const char *end = p + strcspn(p, " \t\n"), *eq = memchr(p, '=', (size_t)(end - p));
        if (eq && (size_t)(eq - p) == len && strncasecmp(p, want, len) == 0
            && (size_t)(end - eq - 1) < outlen) {
            memcpy(out, eq + 1, (size_t)(end - eq - 1));
            out[end - eq - 1] = '\0';
            return out;
        }
        p = end + strspn(end, " \t\n");
    }
    return NULL;
}

int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
                struct addrinfo **res)
{
    static gai_fn gai;
    struct addrinfo h;
    char buf[128];
    const char *addr;
    if (!gai) {
        gai = (gai_fn)real("getaddrinfo");
    }
    if (!node) {
        return gai(node, service, hints, res); /* a passive (bind) address */
    }
    memset(&h, 0, sizeof(h));
    if (hints) {
        h = *hints;
    }
    else {
        h.ai_family = AF_UNSPEC;
        h.ai_flags = AI_V4MAPPED | AI_ADDRCONFIG;
    }
    h.ai_flags |= AI_NUMERICHOST;
    if (is_numeric(node)) {
        return gai(node, service, &h, res);
    }
    if ((addr = lookup(node, h.ai_family, buf, sizeof(buf)))) {
        return gai(addr, service, &h, res);
    }
    record("getaddrinfo", node);
    return EAI_NONAME;
}

static int is_loopback(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET) {
        return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
    }
    if (sa->sa_family == AF_INET6) {
        return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
    }
    return 0;
}

int getnameinfo(const struct sockaddr *sa, socklen_t salen, char *host, socklen_t hostlen,
                char *serv, socklen_t servlen, int flags)
{
    static gni_fn gni;
    if (!gni) {
        gni = (gni_fn)real("getnameinfo");
    }
    if (host && hostlen && !(flags & NI_NUMERICHOST)
        && (sa->sa_family == AF_INET || sa->sa_family == AF_INET6)) {
        if (is_loopback(sa) && hostlen > 9) {
            /* httpd names a virtual host without ServerName this way. */
            int rc = serv && servlen ? gni(sa, salen, NULL, 0, serv, servlen,
                                           flags | NI_NUMERICHOST)
                                     : 0;
            if (rc == 0) {
                strcpy(host, "localhost");
            }
            return rc;
        }
        if (flags & NI_NAMEREQD) {
            char text[64] = "?";
            gni(sa, salen, text, sizeof(text), NULL, 0, NI_NUMERICHOST);
            record("getnameinfo", text);
            return EAI_NONAME;
        }
        flags |= NI_NUMERICHOST;
    }
    return gni(sa, salen, host, hostlen, serv, servlen, flags);
}

/* The legacy calls: a name becomes its address text (which glibc turns
 * into the address without a lookup), anything else is refused. */
static const char *legacy_name(const char *call, const char *name, int family, char *buf,
                               size_t len)
{
    const char *addr;
    if (!name || is_numeric(name)) {
        return name;
    }
    if ((addr = lookup(name, family, buf, len))) {
        return addr;
    }
    record(call, name);
    return NULL;
}

struct hostent *gethostbyname(const char *name)
{
    static ghbn_fn f;
    char buf[128];
    const char *n = legacy_name("gethostbyname", name, AF_INET, buf, sizeof(buf));
    if (!f) {
        f = (ghbn_fn)real("gethostbyname");
    }
    if (!n) {
        h_errno = HOST_NOT_FOUND;
        return NULL;
    }
    return f(n);
}

struct hostent *gethostbyname2(const char *name, int af)
{
    static ghbn2_fn f;
    char buf[128];
    const char *n = legacy_name("gethostbyname2", name, af, buf, sizeof(buf));
    if (!f) {
        f = (ghbn2_fn)real("gethostbyname2");
    }
    if (!n) {
        h_errno = HOST_NOT_FOUND;
        return NULL;
    }
    return f(n, af);
}

int gethostbyname_r(const char *name, struct hostent *ret, char *b, size_t blen,
                    struct hostent **result, int *err)
{
    static ghbnr_fn f;
    char buf[128];
    const char *n = legacy_name("gethostbyname_r", name, AF_INET, buf, sizeof(buf));
    if (!f) {
        f = (ghbnr_fn)real("gethostbyname_r");
    }
    if (!n) {
        *result = NULL;
        *err = HOST_NOT_FOUND;
        return ENOENT;
    }
    return f(n, ret, b, blen, result, err);
}

int gethostbyname2_r(const char *name, int af, struct hostent *ret, char *b, size_t blen,
                     struct hostent **result, int *err)
{
    static ghbn2r_fn f;
    char buf[128];
    const char *n = legacy_name("gethostbyname2_r", name, af, buf, sizeof(buf));
    if (!f) {
        f = (ghbn2r_fn)real("gethostbyname2_r");
    }
    if (!n) {
        *result = NULL;
        *err = HOST_NOT_FOUND;
        return ENOENT;
    }
    return f(n, af, ret, b, blen, result, err);
}

/* Reverse lookups by address have no numeric answer in this API: refused
 * (and recorded) unless loopback, which the hosts file answers. */
struct hostent *gethostbyaddr(const void *addr, socklen_t len, int type)
{
    static struct hostent *(*f)(const void *, socklen_t, int);
    char text[64] = "?";
    if (!f) {
        f = (struct hostent * (*)(const void *, socklen_t, int)) real("gethostbyaddr");
    }
    if ((type == AF_INET && len == 4 && ((const unsigned char *)addr)[0] == 127)
        || (type == AF_INET6 && len == 16 && IN6_IS_ADDR_LOOPBACK((const struct in6_addr *)addr))) {
        return f(addr, len, type);
    }
    inet_ntop(type, addr, text, sizeof(text));
    record("gethostbyaddr", text);
    h_errno = HOST_NOT_FOUND;
    return NULL;
}
