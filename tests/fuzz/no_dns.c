/* Linked into every fuzz target with -Wl,--wrap=apr_sockaddr_info_get:
 * the library resolves webhook hosts through apr_sockaddr_info_get, and a
 * fuzzer would otherwise send every made-up host name it invents to the
 * system resolver. Here a numeric address still becomes its address (so
 * the SSRF rules run on it): IPv6 literals, dotted quads and the older
 * forms getaddrinfo also reads without DNS ("127.1", "0x7f000001",
 * "2130706433"); any name fails to resolve without a lookup. */
#include <apr_network_io.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

apr_status_t __real_apr_sockaddr_info_get(apr_sockaddr_t **sa, const char *hostname,
                                          apr_int32_t family, apr_port_t port,
                                          apr_int32_t flags, apr_pool_t *p);

apr_status_t __wrap_apr_sockaddr_info_get(apr_sockaddr_t **sa, const char *hostname,
                                          apr_int32_t family, apr_port_t port,
                                          apr_int32_t flags, apr_pool_t *p)
{
    unsigned char buf[16];
    struct in_addr v4;
    if (!hostname || (inet_aton(hostname, &v4) == 0
                      && inet_pton(AF_INET6, hostname, buf) != 1)) {
        return APR_EGENERAL; /* "does not resolve" */
    }
    /* A literal: getaddrinfo turns it into the address without asking DNS. */
    return __real_apr_sockaddr_info_get(sa, hostname, family, port, flags, p);
}
