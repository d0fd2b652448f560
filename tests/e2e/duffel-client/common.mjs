// What flow.mjs and stays.mjs share: the client pointed at the sandbox,
// checks, dates, the record of answers written as typed TypeScript, and
// the exit on the first failure.
import { Duffel, DuffelError } from '@duffel/api'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

// node SCRIPT BASE_PATH TOKEN OUT_DIR
export function client() {
  const [basePath, token, outDir] = process.argv.slice(2)
  if (!basePath || !token || !outDir) {
    console.error('usage: node SCRIPT BASE_PATH TOKEN OUT_DIR')
    process.exit(2)
  }
  return { duffel: new Duffel({ token, basePath }), outDir }
}

export function check(cond, what) {
  if (!cond) {
    throw new Error(`check failed: ${what}`)
  }
}

export function daysAhead(n) {
  return new Date(Date.now() + n * 86400000).toISOString().slice(0, 10)
}

// record(name, type, value) keeps an answer; write(dir, file, head) puts
// every answer in a .ts file as a constant of its declared type: tsc then
// refuses a missing field, a field of the wrong type, and a field the type
// does not have (object literals assigned to a declared type).
export function recorder() {
  const items = []
  return {
    record(name, type, value) {
      items.push({ name, type, value })
      return value
    },
    write(dir, file, head) {
      writeFileSync(join(dir, file), head + items.map((i) =>
        `export const ${i.name}: ${i.type} = ${JSON.stringify(i.value, null, 2)}\n`).join(''))
      return items.length
    },
  }
}

export function run(label, main) {
  main().catch((e) => {
    if (e instanceof DuffelError) {
      console.error(`${label}: the sandbox refused a call: HTTP ${e.meta?.status}`,
        JSON.stringify(e.errors))
    } else {
      console.error(`${label}: ${e.stack || e}`)
    }
    process.exit(1)
  })
}
