/**
 * CLI start-up (`--help`, within 250 ms) costs only the command
 * line itself. The Google, workbook, sign-in and network libraries load when
 * a command needs them, so `--help` of the program and of every command must
 * not load them. What loads is recorded in the CLI's own process by a module
 * hook (module-probe.ts), not timed.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const CLI = path.join(root, 'src/cli/main.ts')
const PROBE = path.join(root, 'test/cli/module-probe.ts')

/** Packages a run needs only once it signs in, opens a spreadsheet or validates a config. */
const HEAVY = [
  '@googleapis/sheets',
  'googleapis-common',
  'google-auth-library',
  'exceljs',
  'openid-client',
  '@ewsjs/ntlm-client',
  'jose',
  'undici',
  'zod',
  'croner',
  'p-queue',
  // Only --listen and --metrics-file load it.
  'prom-client',
]

/** Our folders that only a running command needs. */
const COMMAND_FOLDERS = ['src/engine/', 'src/sheets/', 'src/timeline/', 'src/config/', 'src/cli/commands/']
/** `--version` is part of every help: reading package.json costs one small file and no library. */
const HELP_NEEDS = new Set(['src/config/package-version.ts'])

interface Probed {
  code: number | null
  stdout: string
  /** The package names (from node_modules) and our files (relative to the repo) the process loaded. */
  packages: Set<string>
  files: string[]
}

async function probe(args: string[]): Promise<Probed> {
  const out = path.join(await mkdtemp(path.join(tmpdir(), 'ts-module-probe-')), 'loaded.txt')
  const child = spawn(process.execPath, ['--import', PROBE, ...args], {
    cwd: root,
    env: { ...process.env, MODULE_PROBE_OUT: out },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', resolve)
  })
  expect(stderr).toBe('')
  const urls = (await readFile(out, 'utf8')).split('\n').filter(Boolean)
  const packages = new Set<string>()
  const files: string[] = []
  for (const url of urls) {
    if (!url.startsWith('file:')) continue
    const file = fileURLToPath(url)
    const inModules = /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(file)
    if (inModules) packages.add(inModules[1]!.replace(/\\/g, '/'))
    else files.push(path.relative(root, file).split(path.sep).join('/'))
  }
  return { code, stdout, packages, files }
}

describe('--help loads no service, spreadsheet or sign-in library', () => {
  it('the probe sees what a process loads, CommonJS and ES modules alike', async () => {
    // openid-client is an ES module; @googleapis/sheets and google-auth-library are CommonJS.
    const run = await probe(['--input-type=module', '-e', "await import('openid-client'); await import('@googleapis/sheets')"])
    expect(run.code).toBe(0)
    for (const name of ['openid-client', '@googleapis/sheets', 'google-auth-library']) expect([...run.packages]).toContain(name)
  }, 60_000)

  for (const command of [[], ['export'], ['import'], ['sync'], ['undo'], ['login']]) {
    it(`timeline-sheets ${[...command, '--help'].join(' ')}`, async () => {
      const run = await probe([CLI, ...command, '--help'])
      expect(run.code).toBe(0)
      expect(run.stdout).toMatch(/^Usage: timeline-sheets/)
      // The probe worked: the command line library and our entry were seen loading.
      expect([...run.packages]).toContain('commander')
      expect(run.files).toContain('src/cli/main.ts')
      expect([...run.packages].filter((name) => HEAVY.includes(name))).toEqual([])
      expect(run.files.filter((file) => !HELP_NEEDS.has(file) && COMMAND_FOLDERS.some((folder) => file.startsWith(folder)))).toEqual([])
    }, 60_000)
  }
})
