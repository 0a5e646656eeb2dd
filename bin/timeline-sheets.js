#!/usr/bin/env node
// The installed command. Plain JavaScript any Node can parse, so that an old Node gets a clear message
// instead of a syntax error or a missing API somewhere in the CLI: the minimum is package.json's engines.
import { existsSync, readFileSync } from 'node:fs'
import module from 'node:module'
import { URL } from 'node:url'

const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
const wanted = /^>=\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(engines.node.trim())
if (!wanted) throw new Error(`package.json: engines.node "${engines.node}" is not of the form ">=22.12"`)
const minimum = wanted.slice(1).map((part) => Number(part ?? 0))
const current = process.versions.node.split('.').map(Number)
const index = minimum.findIndex((part, i) => current[i] !== part)
if (index !== -1 && current[index] < minimum[index]) {
  process.stderr.write(
    `timeline-sheets needs Node ${minimum.join('.')} or newer (engines.node "${engines.node}"); this is Node ${process.versions.node} ` +
      `(${process.execPath}).\nhint: install a current Node LTS (22 or 24), or put it first on PATH.\n`,
  )
  process.exit(2)
}

const entry = new URL('../dist/cli/main.js', import.meta.url)
if (!existsSync(entry)) {
  process.stderr.write('timeline-sheets: dist/ is missing, so this is a source checkout: run `npm run build` first, or `npm start -- …`.\n')
  process.exit(2)
}
// Before the first import of ours, so the compile cache covers all of them (see enableCompileCache in src/cli/main.ts).
module.enableCompileCache?.()
// A --verbose run (what the hint of an unexpected error asks for) prints that error's stack: through dist/'s source
// maps it names src files and lines, not bundle chunks. Only then, since reading the maps costs every import.
if (process.argv.slice(2).some((arg) => arg === '--verbose' || /^-[a-zA-Z]*v[a-zA-Z]*$/.test(arg))) process.setSourceMapsEnabled(true)
const { main, setRunHeapPolicy } = await import(entry.href)
setRunHeapPolicy()
process.exitCode = await main()
