// A receiver's check with Stripe's own verifier (stripe.webhooks.constructEvent),
// independent of mod_travel's code: reads a JSON file of deliveries
//   [{"secret": "whsec_...", "header": "t=...,v1=...", "body": "<raw body>",
//     "expect": true|false, "tolerance": 300}]
// verifies each and exits non-zero when any result differs from "expect".
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const Stripe = require("stripe");
const stripe = new Stripe("sk_test_unused_by_signature_checks");

const cases = JSON.parse(readFileSync(process.argv[2], "utf8"));
let passed = 0, failed = 0;
for (const c of cases) {
  let ok;
  try {
    const event = stripe.webhooks.constructEvent(c.body, c.header, c.secret, c.tolerance ?? 300);
    ok = typeof event === "object" && event !== null && typeof event.id === "string";
  } catch (e) {
    ok = false;
  }
  if (ok === c.expect) {
    passed++;
  } else {
    failed++;
    console.log(`mismatch: case ${passed + failed} expected ${c.expect}, got ${ok}`);
  }
}
console.log(`${passed} of ${passed + failed} watcher events judged as expected`);
process.exit(failed ? 1 : 0);
