/**
 * The static checks `npm test` runs before the tests: types (tsc), layers and lint (eslint, 0 warnings)
 * and formatting (prettier). They read the same files but not each other's results, so they run side by
 * side, which takes less time than one after another even on 2 cores (decisions/0001). Each check's own output is
 * printed whole, after its verdict, so a failure reads as it would from the tool itself.
 *
 *   node scripts/check.ts     exit 0 when all three pass, 1 when any fails
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'

interface Check {
  name: string
  /** The package whose bin runs the check, and that bin's name in its package.json. */
  pkg: string
  bin: string
  args: string[]
}

const checks: Check[] = [
  { name: 'types', pkg: 'typescript', bin: 'tsc', args: ['-p', 'tsconfig.json'] },
  { name: 'lint', pkg: 'eslint', bin: 'eslint', args: ['--max-warnings', '0', '.'] },
  { name: 'format', pkg: 'prettier', bin: 'prettier', args: ['--check', '.'] },
]

const require = createRequire(import.meta.url)

/** The bin's file, found through the package's own package.json (no shell, no .bin shims). */
function binPath(pkg: string, bin: string): string {
  const manifestPath = require.resolve(`${pkg}/package.json`)
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { bin?: string | Record<string, string> }
  const relative = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.[bin]
  if (relative === undefined) throw new Error(`${pkg}'s package.json names no bin "${bin}"`)
  return path.join(path.dirname(manifestPath), relative)
}

interface Outcome {
  check: Check
  ok: boolean
  seconds: number
  output: string
}

function run(check: Check): Promise<Outcome> {
  const started = performance.now()
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [binPath(check.pkg, check.bin), ...check.args], { stdio: ['ignore', 'pipe', 'pipe'] })
    const chunks: Buffer[] = []
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk))
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk))
    const done = (ok: boolean, extra = '') =>
      resolve({ check, ok, seconds: (performance.now() - started) / 1000, output: Buffer.concat(chunks).toString('utf8') + extra })
    child.on('error', (error) => done(false, `${error.message}\n`))
    child.on('close', (code) => done(code === 0))
  })
}

const outcomes = await Promise.all(checks.map(run))
for (const { check, ok, seconds, output } of outcomes) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${check.name.padEnd(6)} ${check.bin} ${check.args.join(' ')}  (${seconds.toFixed(1)} s)`)
  if (!ok && output.trim() !== '') console.log(output.trimEnd().replace(/^/gm, '     '))
}
process.exitCode = outcomes.every((o) => o.ok) ? 0 : 1
