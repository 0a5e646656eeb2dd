#!/usr/bin/env node
// The CLI is TypeScript run by Node's type stripping (Node >= 22.18 or 24).
import module from 'node:module'

const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(`timeline-sheets needs Node 22.18 or newer (this is ${process.version}).\n`)
  process.exit(2)
}
// Before the first import of ours, so it covers all of them (see enableCompileCache in src/cli/main.ts).
module.enableCompileCache?.()
const { main } = await import('../src/cli/main.ts')
process.exitCode = await main()
