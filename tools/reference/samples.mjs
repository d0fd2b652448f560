// A curl sample for every operation of docs/openapi.yaml, built from the
// operation's own examples: each path parameter's `example`, the query
// parameters that show one, the required headers' examples, and the
// request body's first example. Used twice, so a sample cannot drift from
// the examples it is made of: scripts/build-docs.sh adds the samples to
// the rendered reference page (x-codeSamples, which Redoc shows beside
// each operation), and tests/openapi/check.mjs fails when an operation
// cannot have one (a parameter or body without an example).
//
// The samples use the guides' variables (docs/getting-started.md):
// $API (the server) and $KEY (an API key).
//
//   import { curlSamples, withCurlSamples } from ".../samples.mjs";
//   curlSamples(spec) -> [{path, method, operationId, sample, problems}]
//   withCurlSamples(spec) -> a copy of spec with x-codeSamples set

const METHODS = ["get", "put", "post", "delete", "patch", "head"];

function resolve(spec, o) {
  let seen = 0;
  while (o && typeof o === "object" && typeof o.$ref === "string" && seen++ < 10) {
    const parts = o.$ref.replace(/^#\//, "").split("/")
      .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
    o = parts.reduce((a, k) => (a == null ? undefined : a[k]), spec);
  }
  return o;
}

// The example of a parameter: its own, its schema's, or its first named one.
function paramExample(spec, p) {
  if (p.example !== undefined) return p.example;
  if (p.schema && resolve(spec, p.schema).example !== undefined) return resolve(spec, p.schema).example;
  if (p.examples) {
    const first = Object.values(p.examples)[0];
    const ex = resolve(spec, first);
    if (ex && ex.value !== undefined) return ex.value;
  }
  return undefined;
}

// The request body's first example (media type application/json).
function bodyExample(spec, op) {
  const rb = resolve(spec, op.requestBody);
  const mt = rb && rb.content && rb.content["application/json"];
  if (!mt) return { has: false };
  if (mt.example !== undefined) return { has: true, value: mt.example };
  if (mt.examples) {
    const first = resolve(spec, Object.values(mt.examples)[0]);
    if (first && first.value !== undefined) return { has: true, value: first.value };
  }
  return { has: true, value: undefined, required: !!rb.required };
}

// A shell word: single-quoted unless it is plainly safe.
function sq(s) {
  return /^[A-Za-z0-9_\-./:=,@%+]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function sampleOf(spec, path, method, op, pathItem) {
  const problems = [];
  const params = [...(pathItem.parameters || []), ...(op.parameters || [])]
    .map((p) => resolve(spec, p));
  let url = path;
  const query = [];
  const headers = [];
  for (const p of params) {
    const ex = paramExample(spec, p);
    if (p.in === "path") {
      if (ex === undefined) problems.push(`path parameter ${p.name} has no example`);
      else url = url.replace(`{${p.name}}`, encodeURIComponent(String(ex)));
    } else if (p.in === "query") {
      if (ex !== undefined) query.push(`${encodeURIComponent(p.name)}=${encodeURIComponent(String(ex))}`);
      else if (p.required) problems.push(`query parameter ${p.name} has no example`);
    } else if (p.in === "header" && p.required) {
      if (ex === undefined) problems.push(`header ${p.name} has no example`);
      else headers.push(`${p.name}: ${ex}`);
    }
  }
  const keyed = !(Array.isArray(op.security) && op.security.length === 0);
  const lines = [];
  const verb = method.toUpperCase();
  const target = `"$API${url}${query.length ? "?" + query.join("&") : ""}"`;
  lines.push(verb === "GET" ? `curl -s ${target}` : verb === "HEAD" ? `curl -sI ${target}` : `curl -s -X ${verb} ${target}`);
  if (keyed) lines.push(`-H "x-api-key: $KEY"`);
  for (const h of headers) lines.push(`-H ${sq(h)}`);
  const body = bodyExample(spec, op);
  if (body.has) {
    if (body.value === undefined) {
      if (body.required) problems.push("the request body has no example");
    } else {
      lines.push(`-H 'content-type: application/json'`);
      const text = JSON.stringify(body.value);
      lines.push(`-d ${sq(text.length > 90 ? JSON.stringify(body.value, null, 2) : text)}`);
    }
  }
  return { sample: lines.join(" \\\n  "), problems };
}

export function curlSamples(spec) {
  const out = [];
  for (const [path, item] of Object.entries(spec.paths || {})) {
    for (const m of METHODS) {
      if (!item[m]) continue;
      const { sample, problems } = sampleOf(spec, path, m, item[m], item);
      out.push({ path, method: m, operationId: item[m].operationId, sample, problems });
    }
  }
  return out;
}

export function withCurlSamples(spec) {
  const copy = structuredClone(spec);
  for (const s of curlSamples(spec)) {
    copy.paths[s.path][s.method]["x-codeSamples"] = [{ lang: "Shell", label: "curl", source: s.sample }];
  }
  return copy;
}
