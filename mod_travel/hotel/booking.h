/* A hotel booking with its rooms, guests and payments as read from
 * PostgreSQL (sql/100_hotel_bookings.sql): the values the state machine,
 * the renderer and the jobs work with. Strings and JSON are pool-bound;
 * money columns are exact decimal text in major units. */
#ifndef TRV_HOTEL_BOOKING_H
#define TRV_HOTEL_BOOKING_H

#include "state.h"
#include "lifecycle/row.h"
#include "payment/record.h"

#include <apr_tables.h>
#include <jansson.h>

typedef struct trv_hguest {
    const char *id;            /* guest_... */
    const char *room_id;
    int position;
    const char *first_name, *last_name;
    const char *type;          /* ADULT, CHILD */
    int is_lead;
} trv_hguest;

typedef struct trv_hroom {
    const char *id;            /* room_... */
    int position;              /* 0-based, offer order */
    const char *name, *board, *board_name;
    int adults;
    json_t *children;          /* [age, ...] */
    const char *currency;
    const char *total_amount;  /* decimal text or NULL */
    json_t *due_at_property, *cancellation_policy, *promotions; /* or NULL */
    const char *supplier_reference_number, *hotel_confirmation_code;
    const char *canceled_at;
    apr_array_header_t *guests; /* trv_hguest, in order */
} trv_hroom;

/* A hotel booking's payment (payment/record.h). */
typedef trv_payment_record trv_hpayment;

typedef struct trv_hbooking {
    TRV_LIFECYCLE_ROW;         /* id, org_id, ... payments, list_doc (lifecycle/row.h) */
    trv_hb_status status;
    const char *reference_id;
    const char *hotel_id, *supplier_hotel_id;
    json_t *hotel;             /* {id, name, address} */
    const char *check_in, *check_out;
    json_t *due_at_property, *promotions, *loyalty;
    json_t *customer;          /* the traveller prebook kept (customer.h), or NULL */
    const char *offer_expires_at; /* past_expiry: it has passed */
    const char *supplier_prebook_id;
    const char *supplier_booking_id, *hotel_confirmation_code, *hotel_remarks;
    trv_hb_phase book_phase;
    apr_array_header_t *rooms;    /* trv_hroom by position; NULL until loaded */
    apr_array_header_t *cancellations; /* trv_hcancel (cancellation_store.h) oldest first; NULL until
                                        * loaded */
} trv_hbooking;

/* The status a reader sees: READY_FOR_COMPLETE past its offer's expiry is
 * EXPIRED before any job has stored it. */
trv_hb_status trv_hbooking_status(const trv_hbooking *b);

#endif
