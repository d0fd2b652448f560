/* Money in the sandbox: the currency of each market and fixed sandbox
 * exchange rates, shared by the flight and hotel suppliers. Amounts are
 * integer minor units; prices are modelled in EUR and converted once. */
#ifndef SBX_MONEY_H
#define SBX_MONEY_H

#include <apr.h>

/* The currency a market (ISO country code) is sold in; USD by default. */
const char *sbx_market_currency(const char *country_code);
/* 1 when the sandbox has a rate for the currency (upper-case ISO 4217). */
int sbx_currency_known(const char *currency);
/* ISO 4217 exponent of a currency the sandbox sells in. */
int sbx_currency_exp(const char *currency);
/* EUR cents -> minor units of currency; whole: rounded to whole units. */
apr_int64_t sbx_from_eur(apr_int64_t eur_cents, const char *currency, int whole);

#endif
