/**
 * `--version`, help an operator can read (no "(default: false)" on every flag, the global options on
 * every command's help), and the counterparts' scripts answering --help with usage instead of a stack trace.
 */
import { spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { buildProgram } from '../../src/cli/main.ts'
import { runCli, type CliRun } from '../e2e/cli.ts'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const { version } = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { version: string }

function runScript(script: string, args: string[]): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, script), ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

describe('--version', () => {
  it('prints the package version and nothing else, exit 0', async () => {
    const run = await runCli(['--version'])
    expect(run).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' })
  }, 60_000)
})

describe('--help', () => {
  const program = buildProgram()
  const helps = [
    ['timeline-sheets', program.helpInformation()] as const,
    ...program.commands.map((c) => [c.name(), c.helpInformation()] as const),
  ]

  it('covers every command', () => {
    expect(helps.map(([name]) => name)).toEqual([
      'timeline-sheets',
      'export',
      'import',
      'sync',
      'undo',
      'restore-approved',
      'doctor',
      'report',
      'login',
    ])
  })

  it.each(helps)('%s: no "(default: false)" or "(default: true)" on flags', (_name, help) => {
    expect(help).not.toMatch(/default: (false|true)/)
    // A value's default is still worth saying.
    expect(help).toMatch(/\(default:\s+"timeline-sheets\.json"\)/)
  })

  it.each(helps.slice(1))('%s: shows the global options too', (_name, help) => {
    const global = help.slice(help.indexOf('Global Options:'))
    expect(help).toContain('Global Options:')
    for (const flag of ['--config <file>', '--json', '--verbose', '--quiet', '--deadline <duration>', '--version'])
      expect(global).toContain(flag)
  })
})

describe("the counterparts' scripts", () => {
  it('npm run sheets-fake -- --help prints usage, exit 0', async () => {
    const run = await runScript('counterparts/sheets/cli.ts', ['--help'])
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/^Usage: npm run sheets-fake -- \[options\]/)
    expect(run.stdout).toContain('--port <n>')
    expect(run.stderr).toBe('')
  }, 60_000)

  it('sheets-fake with an unknown option says which, with the usage, exit 2 and no stack trace', async () => {
    const run = await runScript('counterparts/sheets/cli.ts', ['--prot', '8081'])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain("sheets-fake: Unknown option '--prot'")
    expect(run.stderr).toContain('Usage: npm run sheets-fake')
    expect(run.stderr).not.toMatch(/\n\s+at /)
  }, 60_000)

  it('npm run reference-server -- --help prints usage, exit 0', async () => {
    const run = await runScript('counterparts/timeline/cli.ts', ['--help'])
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/^Usage: reference-server \[options\]/)
    expect(run.stderr).toBe('')
  }, 60_000)
})
