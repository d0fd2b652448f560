/* The language Expedia Rapid answers in, from the traveller's
 * Accept-Language (RFC 9110 12.5.4): Rapid takes exactly one of its 34
 * languages ("en-US", "fr-FR", ...; its language.not_supported error lists
 * them) and refuses any other. */
#ifndef TRV_RAPID_LANGUAGE_H
#define TRV_RAPID_LANGUAGE_H

#define TRV_RAPID_LANGUAGE_DEFAULT "en-US"

/* The first of the traveller's languages, by preference (q, then order),
 * that Rapid has: the same tag ("pt-BR"), else the language's own country
 * ("fr" and "fr-BE" are fr-FR, "de-CH" is de-DE), else the language's
 * first ("en-GB" is en-US); Chinese by script or region (zh-Hant, zh-HK,
 * zh-MO: zh-TW; else zh-CN) and Norwegian (no, nn, nb) as nb-NO. A header
 * that names none of them, or none: en-US. A static string. */
const char *trv_rapid_language(const char *accept_language);

#endif
