// The checker's own test: check.mjs must refuse a spec whose examples are
// wrong. Each case edits a copy of docs/openapi.yaml in one way, runs
// `check.mjs --examples-only` on it and expects exit status 1 with the named
// problem; the file as it is must pass. Run by tests/openapi/check.sh (make
// test) before the full check.
//
//   node selftest.mjs SPEC
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const YAML = require("yaml");
const here = dirname(fileURLToPath(import.meta.url));
const specPath = process.argv[2];
if (!specPath) {
  console.error("usage: node selftest.mjs SPEC");
  process.exit(2);
}
const original = YAML.parse(readFileSync(specPath, "utf8"));
const ex = (name) => original.components.examples[name].value;

// [name, edit(spec), the problem check.mjs must report]
const cases = [
  ["details in an error other than validation_failed (docs/api.md: never)",
    (s) => { s.components.examples.Unauthorized.value.error.details = [{ field: "x-api-key", reason: "unknown" }]; },
    "examples.Unauthorized: the example does not match its schema"],
  ["a path parameter without an example (no curl sample can be made)",
    (s) => { delete s.paths["/v1/flight/airlines/{iata_code}"].get.parameters[0].example; },
    "GET /v1/flight/airlines/{iata_code} (curl sample): path parameter iata_code has no example"],
  ["a response example with a value its schema refuses",
    (s) => { s.components.examples.FlightBookingConfirmed.value.data.status = "DONE"; },
    "POST /v1/flight/bookings/{id}/book response 200 application/json examples.FlightBookingConfirmed: the example does not match its schema"],
  ["a response example with a field the schema does not name",
    (s) => { s.components.examples.Airline.value.data.motto = "Fly"; },
    "examples.Airline: the example does not match its schema: /data must NOT have additional properties (motto)"],
  ["a response example without a required field",
    (s) => { delete s.components.examples.CancellationQuote.value.data.quoted_at; },
    "examples.CancellationQuote: the example does not match its schema"],
  ["an error example whose code is not in x-error-codes",
    (s) => { s.components.examples.PaymentDeclined.value.error.code = "card_declined"; },
    "examples.PaymentDeclined: the example's error code card_declined is not in x-error-codes"],
  ["a request example its schema refuses",
    (s) => { s.components.examples.PrebookRequest.value.passengers[0].type = "ADULTS"; },
    "POST /v1/flight/prebook request body application/json examples.PrebookRequest: the example does not match its schema"],
  ["an inline request example its schema refuses",
    (s) => { s.paths["/v1/hotel/search"].post.requestBody.content["application/json"].example.limit = 0; },
    "POST /v1/hotel/search request body application/json example: the example does not match its schema"],
  ["a parameter example its schema refuses",
    (s) => {
      const q = s.paths["/v1/hotel/places"].get.parameters.find((p) => p.name === "q");
      q.example = "l";
    },
    "GET /v1/hotel/places parameter q example: the example does not match its schema"],
  ["a schema's own example that schema refuses",
    (s) => { s.components.schemas.Money.example = { amount: "12.50", currency: "EUR" }; },
    "components.schemas.Money example: the example does not match its schema"],
  ["an operation without a response example",
    (s) => { delete s.paths["/v1/flight/airlines/{iata_code}"].get.responses["200"].content["application/json"].examples; },
    "GET /v1/flight/airlines/{iata_code} response 200: no example"],
  ["a required request body without an example",
    (s) => { delete s.paths["/v1/flight/prebook"].post.requestBody.content["application/json"].examples; },
    "POST /v1/flight/prebook: the required request body has no example"],
  ["a component example nothing uses",
    (s) => { s.components.examples.Orphan = { summary: "unused", value: ex("Airline") }; },
    "components.examples.Orphan: used by no operation"],
];

const dir = mkdtempSync(join(tmpdir(), "openapi-selftest-"));
function check(file) {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(here, "check.mjs"), "--examples-only", file], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => { out += d; });
    child.stderr.on("data", (d) => { out += d; });
    child.on("close", (code) => done({ code, out }));
  });
}
// Two at a time: the machine is shared.
async function runAll(jobs, width) {
  const results = new Array(jobs.length);
  let next = 0;
  async function lane() {
    while (next < jobs.length) { const i = next++; results[i] = await jobs[i](); }
  }
  await Promise.all(Array.from({ length: width }, lane));
  return results;
}
let failed = 0;
const jobs = [["the file as it is", null, null], ...cases].map(([name, edit, expected], i) => async () => {
  const spec = structuredClone(original);
  if (edit) edit(spec);
  const file = join(dir, `case${i}.yaml`);
  writeFileSync(file, YAML.stringify(spec));
  const { code, out } = await check(file);
  if (!edit) return code === 0 ? null : `${name}: check.mjs failed on the unedited file:\n${out}`;
  if (code !== 1) return `${name}: check.mjs exited ${code}, not 1`;
  if (!out.includes(expected)) return `${name}: check.mjs did not report "${expected}"; it said:\n${out}`;
  return null;
});
try {
  for (const r of await runAll(jobs, 2)) if (r) { failed++; console.log(r); }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`openapi self-test: ${jobs.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
