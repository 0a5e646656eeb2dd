/**
 * An unexpected error is a bug in timeline-sheets: the run says so, and its hint asks for a `--verbose` run's
 * output. That output must then say where the error happened (the stack, naming src files), and a run without
 * --verbose must not print one. The installed command's stack goes through dist/'s source maps
 * (scripts/check-package.ts checks that it names src files too).
 */
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { runCli, tempFolder } from '../e2e/cli.ts'

const PLANTED = fileURLToPath(new URL('../support/planted-bug.mjs', import.meta.url))

async function config(): Promise<string> {
  const folder = await tempFolder('internal-error')
  const file = path.join(folder, 'timeline-sheets.json')
  await writeFile(
    file,
    JSON.stringify({
      // Nothing is ever asked of this server: the planted error comes first.
      timeline: { auth: { mode: 'password', baseUrl: 'http://127.0.0.1:9/', username: 'someone' } },
      targets: [{ name: 'team', spreadsheet: { kind: 'workbook', path: path.join(folder, 'team.xlsx') }, timeZone: 'UTC' }],
    }),
  )
  return file
}

describe('an unexpected error', () => {
  it('with --verbose: the message, the hint, then the stack, naming the src files it passed through', async () => {
    const run = await runCli(['export', '--config', await config(), '--verbose'], {
      NODE_OPTIONS: `--import ${PLANTED}`,
      TIMELINE_PASSWORD: 'x',
    })
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('error: Unexpected error: planted bug')
    expect(run.stderr).toContain('hint: This is a bug in timeline-sheets. Run again with --verbose')
    const frames = run.stderr.split('\n').filter((line) => /^\s+at /.test(line))
    expect(frames[0]).toContain('plantedBug')
    expect(
      frames.some((line) => /src\/cli\/[\w/-]+\.ts:\d+:\d+/.test(line)),
      run.stderr,
    ).toBe(true)
    // The message is printed once, as the error line, not again as the stack's first line.
    expect(run.stderr.match(/planted bug/g)).toHaveLength(1)
  })

  it('without --verbose: the message and the hint, no stack', async () => {
    const run = await runCli(['export', '--config', await config()], { NODE_OPTIONS: `--import ${PLANTED}`, TIMELINE_PASSWORD: 'x' })
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('error: Unexpected error: planted bug')
    expect(run.stderr).not.toMatch(/^\s+at /m)
  })

  it('a typed error, even with --verbose, is its message and hint only: the stack is for bugs', async () => {
    const run = await runCli(['export', '--config', await config(), '--verbose'], {})
    expect(run.code).not.toBe(0)
    expect(run.stderr).toMatch(/^error: /m)
    expect(run.stderr).not.toMatch(/^\s+at /m)
  })
})
