/**
 * Preloaded with `node --import` by help-loads-no-libraries.test.ts: records
 * the URL of every module the process loads (ES modules and CommonJS alike)
 * and writes them, one a line, to the file named by MODULE_PROBE_OUT when the
 * process exits.
 */
import { writeFileSync } from 'node:fs'
import { registerHooks } from 'node:module'

const loaded = new Set<string>()
registerHooks({
  load(url, context, nextLoad) {
    loaded.add(url)
    return nextLoad(url, context)
  },
})
process.on('exit', () => {
  const out = process.env.MODULE_PROBE_OUT
  if (out) writeFileSync(out, [...loaded].join('\n'))
})
