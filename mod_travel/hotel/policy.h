/* A cancellation policy as a booking stores and shows it (docs/hotels.md
 * "The booking"), made from the neutral shape the adapters read out of a
 * supplier's answer (supplier.h): the prebook's terms and, once booked, the
 * policy the supplier stated at book (or in the read that confirmed it).
 * One conversion for both, so the two can never differ in shape. */
#ifndef TRV_HOTEL_POLICY_H
#define TRV_HOTEL_POLICY_H

#include <jansson.h>

/* {version 1, refundable, deadline (free cancellation until then: the
 * first penalty above zero of a refundable policy; null when never free),
 * penalties [{from, type AMOUNT, amount}], restrictions []} from a neutral
 * {refundable, penalties [{from, amount}]}; JSON null when neutral is not
 * an object. A new reference. */
json_t *trv_hotel_policy_doc(const json_t *neutral);

#endif
