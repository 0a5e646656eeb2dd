/**
 * `npm run build` (run by `npm pack` and `npm publish` through `prepack`): compiles src/ into dist/ for the
 * installed package, because Node does not strip types under node_modules, and writes config.schema.json from
 * the zod schema. The repository itself never runs dist/: `npm start`, the demo and the tests run src/ directly.
 */
import { spawnSync } from 'node:child_process'
import { rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { configJsonSchemaText } from '../src/config/json-schema.ts'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const dist = path.join(root, 'dist')

// A file removed from src must not live on in the package.
await rm(dist, { recursive: true, force: true })
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
const compiled = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' })
if (compiled.status !== 0) {
  process.stderr.write(`build: tsc failed (exit ${compiled.status ?? compiled.signal})\n`)
  process.exit(1)
}
process.stderr.write(`build: compiled src/ into ${path.relative(root, dist)}/\n`)
// Regenerated on every build, so the package never ships a schema older than its code.
await writeFile(path.join(root, 'config.schema.json'), configJsonSchemaText())
process.stderr.write('build: wrote config.schema.json from the zod schema\n')
