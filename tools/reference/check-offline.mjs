// Fails when the rendered reference page would load anything from the
// network when opened: a script, stylesheet, font or image URL outside the
// file, an @import, or Redoc's telemetry switched on. Run by `make docs`
// (scripts/build-docs.sh) on build/docs/api.html.
//
//   node check-offline.mjs FILE
import { readFileSync } from "node:fs";

const file = process.argv[2];
if (!file) {
  console.error("usage: node check-offline.mjs FILE");
  process.exit(2);
}
const html = readFileSync(file, "utf8");
const problems = [];
const remote = /^\s*(https?:)?\/\//i;
for (const m of html.matchAll(/<(script|link|img|iframe|source|video|audio|embed|object)\b([^>]*)>/gi)) {
  for (const a of m[2].matchAll(/\b(src|href|data|srcset)\s*=\s*("([^"]*)"|'([^']*)'|([^\s>]+))/gi)) {
    const url = a[3] ?? a[4] ?? a[5];
    if (remote.test(url)) problems.push(`<${m[1]} ${a[1]}="${url}">`);
  }
}
// Stylesheets: only inside <style> (the bundle's JavaScript mentions
// "@import" as a CSS keyword, which is not a load).
for (const s of html.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/gi)) {
  for (const u of s[1].matchAll(/url\(\s*["']?((https?:)?\/\/[^"')]+)/gi)) problems.push(`style url(${u[1]})`);
  for (const u of s[1].matchAll(/@import\s+(url\()?\s*["']?((https?:)?\/\/[^"')\s;]+)/gi)) problems.push(`style @import ${u[2]}`);
}
if (!/<meta http-equiv="Content-Security-Policy" content="default-src 'none';/.test(html)) {
  problems.push("no Content-Security-Policy meta tag (scripts/build-docs.sh adds it)");
}
if (!html.includes('"disableTelemetry":true')) problems.push("Redoc's telemetry is not disabled");
for (const p of problems) console.log(`${file}: loads from the network: ${p}`);
console.log(`reference page: ${problems.length ? "FAILED" : "offline"} (${(html.length / 1024).toFixed(0)} KiB)`);
process.exit(problems.length ? 1 : 0);
