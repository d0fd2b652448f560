/* The sandbox payment provider's vault: the test instruments a merchant
 * can name, each with the card it stands for. The card numbers are the
 * card networks' published test numbers; they leave the vault only in a
 * forwarded request to a destination it serves (pay/forward.c). */
#ifndef SBX_PAY_VAULT_H
#define SBX_PAY_VAULT_H

typedef struct sbx_vault_card {
    const char *id;           /* pi_test_... */
    const char *brand, *last4, *funding, *wallet;
    const char *number;       /* the card number itself */
    int declined;             /* the issuer declines it */
    int slow;                 /* its details are readable only a while after */
} sbx_vault_card;

/* The instrument named id, or NULL. */
const sbx_vault_card *sbx_vault_card_of(const char *id);

#endif
