#include "owner.h"

#include <apr_strings.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *machine(apr_pool_t *p)
{
    char host[256] = "localhost", boot[64] = "-";
    struct stat st;
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(boot, sizeof(boot), f)) {
            strcpy(boot, "-");
        }
        boot[strcspn(boot, "\n")] = '\0';
        fclose(f);
    }
    gethostname(host, sizeof(host) - 1);
    host[sizeof(host) - 1] = '\0';
    return apr_psprintf(p, "%s/%s/%lu", host, boot,
                        stat("/proc/self/ns/pid", &st) == 0 ? (unsigned long)st.st_ino : 0UL);
}

const char *trv_owner_self(apr_pool_t *p)
{
    return apr_psprintf(p, "%s:%ld", machine(p), (long)getpid());
}

int trv_owner_gone(apr_pool_t *p, const char *owner)
{
    const char *colon = owner ? strrchr(owner, ':') : NULL;
    const char *here = machine(p);
    char *end;
    long pid;
    if (!colon || strlen(here) != (size_t)(colon - owner)
        || strncmp(owner, here, (size_t)(colon - owner)) != 0) {
        return 0;
    }
    pid = strtol(colon + 1, &end, 10);
    if (*end || pid <= 1) {
        return 0;
    }
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}
