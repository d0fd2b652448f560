// Adds each operation's curl sample (samples.mjs) to a JSON copy of the
// OpenAPI document as x-codeSamples, which Redoc shows beside the
// operation. Run by scripts/build-docs.sh on the bundle Redocly made.
//
//   node add-samples.mjs IN.json OUT.json
import { readFileSync, writeFileSync } from "node:fs";
import { withCurlSamples } from "./samples.mjs";

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error("usage: node add-samples.mjs IN.json OUT.json");
  process.exit(2);
}
writeFileSync(output, JSON.stringify(withCurlSamples(JSON.parse(readFileSync(input, "utf8")))));
