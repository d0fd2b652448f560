#include "vault.h"

#include <string.h>

static const sbx_vault_card cards[] = {
    {"pi_test_visa", "visa", "4242", "credit", NULL, "4242424242424242", 0, 0},
    {"pi_test_mastercard", "mastercard", "4444", "credit", NULL, "5555555555554444", 0, 0},
    {"pi_test_amex_applepay", "amex", "8431", "credit", "apple_pay", "371449635398431", 0, 0},
    {"pi_test_decline", "visa", "0002", "credit", NULL, "4000000000000002", 1, 0},
    {"pi_test_slowcard", "visa", "1881", "debit", NULL, "4012888888881881", 0, 1},
};

const sbx_vault_card *sbx_vault_card_of(const char *id)
{
    size_t i;
    for (i = 0; id && i < sizeof(cards) / sizeof(cards[0]); i++) {
        if (strcmp(cards[i].id, id) == 0) {
            return &cards[i];
        }
    }
    return NULL;
}
