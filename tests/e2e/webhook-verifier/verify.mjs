// A receiver's check with the standardwebhooks library (npm), independent
// of mod_travel's own code: reads a JSON file of deliveries
//   [{"secret": "whsec_...", "headers": {"webhook-id": ..., "webhook-timestamp": ...,
//     "webhook-signature": ...}, "body": "<raw body>", "expect": true|false}]
// verifies each and exits non-zero when any result differs from "expect".
// A case with "public_key": "whpk_..." instead of "secret" is a v1a
// (Ed25519) delivery: the standardwebhooks package (1.1.1) knows only v1,
// so those are checked with Node's own crypto, written from the
// specification: some space-separated "v1a,<base64>" entry must be a valid
// Ed25519 signature of "<id>.<timestamp>.<body>" under the raw 32-byte
// public key, and the timestamp within five minutes.
import { readFileSync } from "node:fs";
import { createPublicKey, verify } from "node:crypto";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { Webhook } = require("standardwebhooks");

function verifyV1a(publicKey, body, headers) {
  if (!publicKey.startsWith("whpk_")) throw new Error("not a whpk_ key");
  const raw = Buffer.from(publicKey.slice(5), "base64");
  if (raw.length !== 32) throw new Error("not a 32-byte key");
  const key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: raw.toString("base64url") },
                                format: "jwk" });
  const id = headers["webhook-id"], ts = headers["webhook-timestamp"];
  if (!id || !ts || Math.abs(Date.now() / 1000 - Number(ts)) > 300) throw new Error("stale");
  const msg = Buffer.from(`${id}.${ts}.${body}`, "utf8");
  const ok = (headers["webhook-signature"] || "").split(" ").some((entry) => {
    const [version, sig] = entry.split(",");
    return version === "v1a" && sig && verify(null, msg, key, Buffer.from(sig, "base64"));
  });
  if (!ok) throw new Error("no valid v1a signature");
  return JSON.parse(body);
}

const cases = JSON.parse(readFileSync(process.argv[2], "utf8"));
let passed = 0, failed = 0;
for (const c of cases) {
  let ok;
  try {
    const event = c.public_key ? verifyV1a(c.public_key, c.body, c.headers)
                               : new Webhook(c.secret).verify(c.body, c.headers);
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
