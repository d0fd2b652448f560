// A receiver's check with the standardwebhooks library (npm), independent
// of mod_travel's own code: reads a JSON file of deliveries
//   [{"secret": "whsec_...", "headers": {"webhook-id": ..., "webhook-timestamp": ...,
//     "webhook-signature": ...}, "body": "<raw body>", "expect": true|false}]
// verifies each and exits non-zero when any result differs from "expect".
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { Webhook } = require("standardwebhooks");

const cases = JSON.parse(readFileSync(process.argv[2], "utf8"));
let passed = 0, failed = 0;
for (const c of cases) {
  let ok;
  try {
    const event = new Webhook(c.secret).verify(c.body, c.headers);
    ok = typeof event === "object" && event !== null && event.id === c.headers["webhook-id"];
  } catch (e) {
    ok = false;
  }
  if (ok === c.expect) {
    passed++;
  } else {
    failed++;
    console.log(`mismatch: ${c.headers["webhook-id"]} expected ${c.expect}, got ${ok}`);
  }
}
console.log(`${passed} of ${passed + failed} deliveries judged as expected`);
process.exit(failed ? 1 : 0);
