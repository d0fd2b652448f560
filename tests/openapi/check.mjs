// Checks docs/openapi.yaml, with packages from the npm registry (installed
// by `make test` into tests/openapi/node_modules):
//
//   node check.mjs SPEC
//     1. the file is valid OpenAPI 3.1 against the specification's own JSON
//        schema (@seriousme/openapi-schema-validator);
//     2. it passes swagger-parser's validation (every $ref resolves, path
//        parameters declared, operationIds unique, ...);
//     3. every schema in it compiles under Ajv's strict JSON Schema 2020-12
//        mode (no misspelt keywords, no `required` naming an unknown
//        property);
//     4. every error response lists its codes in x-error-codes, and only
//        error responses do;
//     5. every $ref resolves, operationIds are unique, and each operation
//        declares exactly its path template's parameters (required).
//     6. every example matches what it illustrates: a media type's
//        `example` / `examples` (components/examples followed) its schema
//        (a response's closed: no field the schema does not name; an error
//        example's code in the response's x-error-codes), a parameter's its
//        schema, a schema's own `example` / `examples` that schema; under
//        paths, every success (2xx) response with a body shows an example
//        (or says why it cannot in `x-example-missing`), and every required
//        request body one; no component example is unused.
//
//     7. every operation has a curl sample built from its examples
//        (tools/reference/samples.mjs, which the reference page shows): each
//        path parameter and required header has an example, each request
//        body one, and the sample's body reads back as that example.
//
//   node check.mjs --examples-only SPEC
//     steps 3, 6 and 7 alone (tests/openapi/selftest.mjs runs it many times).
//
//   node check.mjs SPEC EXCHANGES
//     also judges the /v1 exchanges the e2e tests recorded (one JSON object a
//     line: {method, path, query, request, status, body}; see
//     tests/e2e/e2e.c): each must be an operation of the spec answering a
//     status it documents, with a body that matches the response schema
//     with no field the schema does not name, and an error code its
//     x-error-codes list; a request the service accepted (2xx) must match
//     the request body and query parameter schemas. Anything outside the
//     spec's paths must be the error envelope.
//
// Prints one line per problem and "N passed, N failed"; exits 1 on any
// problem.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Validator } from "@seriousme/openapi-schema-validator";
import { curlSamples } from "../../tools/reference/samples.mjs";

const require = createRequire(import.meta.url);
const SwaggerParser = require("@apidevtools/swagger-parser");
const Ajv2020 = require("ajv/dist/2020").default;
const addFormats = require("ajv-formats").default;
const YAML = require("yaml");

const args = process.argv.slice(2);
const examplesOnly = args[0] === "--examples-only";
if (examplesOnly) args.shift();
const [specPath, exchangesPath] = args;
if (!specPath) {
  console.error("usage: node check.mjs SPEC [EXCHANGES]");
  process.exit(2);
}
let passed = 0, failed = 0;
const problems = new Map(); // message -> count (exchanges repeat)
function problem(msg) {
  failed++;
  problems.set(msg, (problems.get(msg) || 0) + 1);
}
function ok() { passed++; }

const spec = YAML.parse(readFileSync(specPath, "utf8"));

// 1. The OpenAPI 3.1 schema.
if (!examplesOnly) {
  const v = new Validator();
  const res = await v.validate(structuredClone(spec));
  if (res.valid && v.version === "3.1") ok();
  else problem(`not valid OpenAPI 3.1: ${JSON.stringify(res.errors ?? v.version).slice(0, 2000)}`);
}

// 2. swagger-parser's semantic validation.
if (!examplesOnly) {
  try {
    await SwaggerParser.validate(structuredClone(spec));
    ok();
  } catch (e) {
    problem(`swagger-parser: ${e.message}`);
  }
}

// 3. Every schema compiles strictly. Local references become schema ids.
const OPENAPI_KEYWORDS = ["example", "discriminator", "xml", "externalDocs"];
function ajvFor(closed) {
  const ajv = new Ajv2020({ strict: true, strictRequired: true, allErrors: true });
  addFormats(ajv);
  for (const k of OPENAPI_KEYWORDS) ajv.addKeyword(k);
  for (const [name, schema] of Object.entries(spec.components?.schemas ?? {})) {
    ajv.addSchema(prepare(schema, closed), `#${name}`);
  }
  return ajv;
}
// A copy with refs to component schemas made ids; closed: every object that
// names its properties accepts no others (what the responses must hold to).
function prepare(schema, closed) {
  if (Array.isArray(schema)) return schema.map((s) => prepare(s, closed));
  if (schema === null || typeof schema !== "object") return schema;
  const out = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === "$ref" && typeof v === "string" && v.startsWith("#/components/schemas/")) {
      out.$ref = `#${v.slice("#/components/schemas/".length)}`;
    } else if (k === "properties" || k === "$defs" || k === "patternProperties") {
      out[k] = Object.fromEntries(Object.entries(v).map(([n, s]) => [n, prepare(s, closed)]));
    } else if (k === "enum" || k === "const" || k === "default" || k === "example" || k === "examples"
               || k === "required") {
      out[k] = v;
    } else {
      out[k] = prepare(v, closed);
    }
  }
  if (closed && out.properties && out.additionalProperties === undefined
      && out.unevaluatedProperties === undefined) {
    out.additionalProperties = false;
  }
  return out;
}
function resolve(obj) {
  // A component reference outside schemas (parameters, responses, bodies).
  while (obj && obj.$ref && !obj.$ref.startsWith("#/components/schemas/")) {
    const parts = obj.$ref.replace(/^#\//, "").split("/");
    obj = parts.reduce((o, p) => o?.[p], spec);
  }
  return obj;
}
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
function* operations() {
  for (const [path, item] of Object.entries(spec.paths ?? {})) {
    for (const m of METHODS) if (item[m]) yield [path, m, item[m], item];
  }
}
function* schemasOf(op, item) {
  for (const p of [...(item.parameters ?? []), ...(op.parameters ?? [])]) {
    const param = resolve(p);
    if (param?.schema) yield [`parameter ${param.name}`, param.schema];
  }
  const body = resolve(op.requestBody);
  for (const [type, media] of Object.entries(body?.content ?? {})) {
    if (media.schema) yield [`request body ${type}`, media.schema];
  }
  for (const [status, r] of Object.entries(op.responses ?? {})) {
    const resp = resolve(r);
    for (const [type, media] of Object.entries(resp?.content ?? {})) {
      if (media.schema) yield [`response ${status} ${type}`, media.schema];
    }
  }
}
const strictAjv = ajvFor(false);
const closedAjv = ajvFor(true);
try {
  for (const name of Object.keys(spec.components?.schemas ?? {})) strictAjv.getSchema(`#${name}`);
  ok();
} catch (e) {
  problem(`component schemas do not compile strictly: ${e.message}`);
}
const compiled = new Map(); // schema object -> {open, closed} validators
function validators(schema) {
  if (!compiled.has(schema)) {
    compiled.set(schema, {
      open: strictAjv.compile(prepare(schema, false)),
      closed: closedAjv.compile(prepare(schema, true)),
    });
  }
  return compiled.get(schema);
}
for (const [path, m, op, item] of operations()) {
  for (const [what, schema] of schemasOf(op, item)) {
    try {
      validators(schema);
      ok();
    } catch (e) {
      problem(`${m.toUpperCase()} ${path} ${what}: ${e.message}`);
    }
  }
  // 4. x-error-codes only on error responses, as a list of codes.
  for (const [status, r] of Object.entries(op.responses ?? {})) {
    const codes = resolve(r)?.["x-error-codes"];
    if (codes !== undefined) {
      if (!Array.isArray(codes) || !/^[45]\d\d$/.test(status)) {
        problem(`${m.toUpperCase()} ${path} ${status}: x-error-codes belongs on a 4xx/5xx response`);
      } else ok();
    } else if (/^[45]\d\d$/.test(status)) {
      problem(`${m.toUpperCase()} ${path} ${status}: an error response without x-error-codes`);
    }
  }
}

// 5. Every $ref points somewhere, operationIds are unique, and every
// operation declares exactly the parameters of its path template, required.
(function refs(node, where) {
  if (Array.isArray(node)) return node.forEach((n, i) => refs(n, `${where}/${i}`));
  if (node === null || typeof node !== "object") return;
  if (typeof node.$ref === "string") {
    const target = node.$ref.startsWith("#/")
      ? node.$ref.slice(2).split("/").reduce((o, p) => o?.[p], spec) : undefined;
    if (target === undefined) problem(`${where}: $ref ${node.$ref} points nowhere`);
    else ok();
  }
  for (const [k, v] of Object.entries(node)) if (k !== "enum" && k !== "const") refs(v, `${where}/${k}`);
})(spec, "#");
{
  const ids = new Map();
  for (const [path, m, op, item] of operations()) {
    const where = `${m.toUpperCase()} ${path}`;
    if (!op.operationId) problem(`${where}: no operationId`);
    else if (ids.has(op.operationId)) problem(`${where}: operationId ${op.operationId} is also ${ids.get(op.operationId)}'s`);
    else { ids.set(op.operationId, where); ok(); }
    const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((x) => x[1]).sort();
    const declared = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(resolve)
      .filter((p) => p?.in === "path");
    const names = declared.map((p) => p.name).sort();
    if (JSON.stringify(inPath) !== JSON.stringify(names)) {
      problem(`${where}: path parameters ${names.join(",") || "none"} declared, the path has ${inPath.join(",") || "none"}`);
    } else if (declared.some((p) => p.required !== true)) {
      problem(`${where}: a path parameter is not required: true`);
    } else ok();
  }
}

// 6. The examples. A response example is held to the closed schema, as the
// recorded answers are: an example with a field the service no longer
// sends, or without one it now always sends, fails here.
const usedExamples = new Set();
function exampleValues(holder) {
  // [label, value] of an object's `example` and `examples` (a map of
  // Example objects, possibly references to components/examples).
  const out = [];
  if (holder && Object.hasOwn(holder, "example")) out.push(["example", holder.example]);
  for (const [name, e] of Object.entries(holder?.examples ?? {})) {
    if (e?.$ref) {
      const m = /^#\/components\/examples\/(.+)$/.exec(e.$ref);
      if (m) usedExamples.add(m[1]);
    }
    const ex = resolve(e);
    if (ex && Object.hasOwn(ex, "value")) out.push([`examples.${name}`, ex.value]);
    else problem(`examples.${name}: no value (externalValue is not used here)`);
  }
  return out;
}
function checkExample(where, validator, value, codes) {
  if (!validator(value)) {
    const errs = validator.errors.map((e) => `${e.instancePath || "/"} ${e.message}${
      e.params?.additionalProperty ? ` (${e.params.additionalProperty})` : ""}`);
    problem(`${where}: the example does not match its schema: ${[...new Set(errs)].slice(0, 4).join("; ")}`);
  } else if (codes && !codes.includes(value?.error?.code)) {
    problem(`${where}: the example's error code ${value?.error?.code} is not in x-error-codes`);
  } else ok();
}
// Schema-level `example` (OpenAPI) and `examples` (JSON Schema), anywhere
// in a schema: each must be valid against the schema that carries it.
const SUBSCHEMA_MAPS = ["properties", "$defs", "patternProperties", "dependentSchemas"];
const SUBSCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"];
const SUBSCHEMA_ONE = ["items", "additionalProperties", "not", "if", "then", "else", "contains",
  "propertyNames", "unevaluatedItems", "unevaluatedProperties"];
const walkedSchemas = new Set();
function schemaExamples(schema, where) {
  if (!schema || typeof schema !== "object" || walkedSchemas.has(schema)) return;
  walkedSchemas.add(schema);
  const values = [];
  if (Object.hasOwn(schema, "example")) values.push(["example", schema.example]);
  if (Array.isArray(schema.examples)) schema.examples.forEach((v, i) => values.push([`examples[${i}]`, v]));
  for (const [label, value] of values) {
    try {
      checkExample(`${where} ${label}`, validators(schema).open, value);
    } catch (e) {
      problem(`${where} ${label}: ${e.message}`);
    }
  }
  for (const k of SUBSCHEMA_MAPS) for (const [n, s] of Object.entries(schema[k] ?? {})) schemaExamples(s, `${where}.${n}`);
  for (const k of SUBSCHEMA_LISTS) (schema[k] ?? []).forEach((s, i) => schemaExamples(s, `${where}.${k}[${i}]`));
  for (const k of SUBSCHEMA_ONE) if (schema[k] && typeof schema[k] === "object") schemaExamples(schema[k], `${where}.${k}`);
}
for (const [name, schema] of Object.entries(spec.components?.schemas ?? {})) {
  schemaExamples(schema, `components.schemas.${name}`);
}
function* allOperations() {
  for (const [path, m, op, item] of operations()) yield [`${m.toUpperCase()} ${path}`, op, item, true];
  for (const [name, item] of Object.entries(spec.webhooks ?? {})) {
    for (const m of METHODS) if (item[m]) yield [`webhook ${name} ${m.toUpperCase()}`, item[m], item, false];
  }
}
for (const [where, op, item, isPath] of allOperations()) {
  for (const p of [...(item.parameters ?? []), ...(op.parameters ?? [])]) {
    const param = resolve(p);
    if (!param?.schema) continue;
    schemaExamples(param.schema, `${where} parameter ${param.name} schema`);
    for (const [label, value] of exampleValues(param)) {
      checkExample(`${where} parameter ${param.name} ${label}`, validators(param.schema).open, value);
    }
  }
  const body = resolve(op.requestBody);
  let requestShown = false;
  for (const [type, media] of Object.entries(body?.content ?? {})) {
    if (!media.schema) continue;
    schemaExamples(media.schema, `${where} request body schema`);
    for (const [label, value] of exampleValues(media)) {
      requestShown = true;
      checkExample(`${where} request body ${type} ${label}`, validators(media.schema).open, value);
    }
  }
  if (isPath && body?.required && !requestShown) problem(`${where}: the required request body has no example`);
  for (const [status, r] of Object.entries(op.responses ?? {})) {
    const resp = resolve(r);
    let shown = false;
    for (const [type, media] of Object.entries(resp?.content ?? {})) {
      if (!media.schema) continue;
      schemaExamples(media.schema, `${where} response ${status} schema`);
      for (const [label, value] of exampleValues(media)) {
        shown = true;
        checkExample(`${where} response ${status} ${type} ${label}`, validators(media.schema).closed, value,
          resp["x-error-codes"]);
      }
    }
    if (!isPath || !/^2\d\d$/.test(status) || Object.keys(resp?.content ?? {}).length === 0) continue;
    const why = resp["x-example-missing"];
    if (shown && why !== undefined) problem(`${where} response ${status}: an example and x-example-missing`);
    else if (!shown && (typeof why !== "string" || why.trim() === "")) {
      problem(`${where} response ${status}: no example (x-example-missing says why there cannot be one)`);
    } else ok();
  }
}
for (const name of Object.keys(spec.components?.examples ?? {})) {
  if (!usedExamples.has(name)) problem(`components.examples.${name}: used by no operation`);
  else ok();
}

// The exchanges the e2e tests recorded.
if (exchangesPath && !examplesOnly) {
  const routes = [...operations()].map(([path, m, op, item]) => ({
    path, method: m.toUpperCase(), op, item,
    re: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, "\\$&")
      .replace(/\\?\{[^}]+\\?\}/g, "[^/]+")}$`),
  }));
  const errorV = validators(spec.components.schemas.Error);
  const lines = readFileSync(exchangesPath, "utf8").split("\n").filter(Boolean);
  const seen = new Set();
  for (const line of lines) {
    try {
      judge(line);
    } catch (e) {
      problem(`an exchange could not be judged: ${e.message}`);
    }
  }
  function judge(line) {
    let x;
    try { x = JSON.parse(line); } catch { problem(`an unreadable exchange line`); return; }
    if (x.method === "HEAD" || !x.path.startsWith("/v1")) return;
    let body;
    try { body = x.body === "" ? undefined : JSON.parse(x.body); } catch { body = Symbol("not JSON"); }
    const onPath = routes.filter((r) => r.re.test(x.path));
    const route = onPath.find((r) => r.method === x.method);
    if (!route) {
      // Outside the operations: an unknown path or method, always an error envelope.
      if (x.status >= 400 && errorV.closed(body)) ok();
      else problem(`${x.method} ${x.path} (no such operation) answered ${x.status} without the error envelope`);
      return;
    }
    const where = `${x.method} ${route.path} ${x.status}`;
    seen.add(`${x.method} ${route.path}`);
    const r = resolve(route.op.responses[String(x.status)]);
    if (!r) {
      problem(`${where}: status not documented`);
      return;
    }
    const schema = r.content?.["application/json"]?.schema;
    if (!schema && x.status < 300 && typeof body === "symbol"
        && Object.keys(r.content ?? {}).length > 0) {
      ok(); // a documented body of another type (GET /v1/openapi.yaml)
      return;
    }
    if (!schema) {
      problem(`${where}: the response documents no application/json body`);
      return;
    }
    const v = validators(schema);
    if (!v.closed(body)) {
      const errs = v.closed.errors.map((e) => `${e.instancePath || "/"} ${e.message}${
        e.params?.additionalProperty ? ` (${e.params.additionalProperty})` : ""}`);
      problem(`${where}: body does not match the schema: ${[...new Set(errs)].slice(0, 4).join("; ")}`);
      return;
    }
    if (r["x-error-codes"] && !r["x-error-codes"].includes(body?.error?.code)) {
      problem(`${where}: error code ${body?.error?.code} is not in x-error-codes`);
      return;
    }
    if (x.status < 300) {
      // What the service accepted must be what the spec allows.
      const reqBody = resolve(route.op.requestBody);
      const reqSchema = reqBody?.content?.["application/json"]?.schema;
      if (x.request !== null && x.request !== undefined && x.request !== "") {
        let rb;
        try { rb = JSON.parse(x.request); } catch { rb = Symbol("not JSON"); }
        if (!reqSchema) {
          problem(`${where}: accepted a request body the spec does not describe`);
          return;
        }
        const rv = validators(reqSchema);
        if (!rv.open(rb)) {
          problem(`${where}: accepted a request body the spec refuses: ${rv.open.errors
            .map((e) => `${e.instancePath || "/"} ${e.message}`).slice(0, 3).join("; ")}`);
          return;
        }
      } else if (reqBody?.required) {
        problem(`${where}: accepted no body although the spec requires one`);
        return;
      }
      const params = [...(route.item.parameters ?? []), ...(route.op.parameters ?? [])]
        .map(resolve).filter((p) => p.in === "query");
      let bad = null;
      for (const [name, value] of Object.entries(x.query ?? {})) {
        const p = params.find((q) => q.name === name);
        if (!p) { bad = `query parameter ${name} is not in the spec`; break; }
        const coerced = /^(integer|number)$/.test(p.schema?.type) && /^-?\d+(\.\d+)?$/.test(value)
          ? Number(value) : value;
        if (!validators(p.schema).open(coerced)) { bad = `query ${name}=${value} is refused by the spec`; break; }
      }
      if (bad) { problem(`${where}: accepted, but ${bad}`); return; }
    }
    ok();
  }
  // Which operations no test reached: reported, not failed.
  const missed = routes.filter((r) => !seen.has(`${r.method} ${r.path}`));
  console.log(`exchanges: ${lines.length} recorded; operations reached ${routes.length - missed.length} of ${routes.length}`);
  for (const r of missed) console.log(`  not reached by any e2e test: ${r.method} ${r.path}`);
}

// 7. A curl sample per operation, from its own examples (examples too, so
// --examples-only runs it).
{
  for (const s of curlSamples(spec)) {
    const where = `${s.method.toUpperCase()} ${s.path} (curl sample)`;
    if (s.problems.length) { problem(`${where}: ${s.problems.join("; ")}`); continue; }
    if (/[{}]/.test(s.sample.split("\n")[0])) { problem(`${where}: a path template is left in ${s.sample.split("\n")[0]}`); continue; }
    // The body as the shell will pass it: '...' with '\'' for a quote.
    const m = s.sample.match(/-d '((?:[^']|'\\'')*)'$/s) || s.sample.match(/-d (\S+)$/);
    const op = spec.paths[s.path][s.method];
    if (m) {
      const sent = m[1].replace(/'\\''/g, "'");
      let parsed;
      try { parsed = JSON.parse(sent); } catch { problem(`${where}: the body is not JSON: ${sent.slice(0, 200)}`); continue; }
      const mt = resolve(op.requestBody)?.content?.["application/json"];
      const ex = mt?.example ?? resolve(Object.values(mt?.examples ?? {})[0])?.value;
      if (JSON.stringify(parsed) !== JSON.stringify(ex)) { problem(`${where}: the body is not the example`); continue; }
    }
    ok();
  }
}

for (const [msg, n] of problems) console.log(n > 1 ? `${msg} (x${n})` : msg);
console.log(`openapi: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
