/**
 * The fuzzer's own checks, kept honest: a small seeded run through the real
 * CLI on both backends must report four zeros — and must have had something to
 * judge (invalid rows, planned writes, server writes), or the zeros mean nothing.
 * Its checker once counted a team's Notes ("Fixed login bug") as a bug report,
 * looked for Statuses in a form the tool no longer writes, and read `_x0000_`
 * escapes the way exceljs does rather than the way Excel shows them.
 */
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, test } from 'vitest'
import { startProcess } from './cli-process.ts'

const script = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../scripts/fuzz-import.ts')

test('a seeded fuzz run on both backends finds nothing, and has something to judge', { timeout: 300_000 }, async () => {
  const run = await startProcess(script, ['--seed', '7', '--rows', '600', '--backend', 'both'], {}, 280_000).exited
  expect(run.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m)
  for (const backend of ['workbook', 'google']) {
    const report = new RegExp(`^${backend} \\(seed 7, 600 rows[^\\n]*\\n((?:  .*\\n)+)`, 'm').exec(run.stdout)?.[1] ?? ''
    expect(report, run.stdout).toMatch(/exits whose output says "bug": 0\n/)
    expect(report).toMatch(/invalid rows without a Status: 0\n/)
    expect(report).toMatch(/server writes from invalid rows: 0\n/)
    expect(report).toMatch(/rows whose content was replaced: 0\n/)
    expect(report).toMatch(/server writes into approved weeks: 0\n/)
    expect(report).toMatch(/rows of approved weeks edited without a Status naming the approval: 0\n/)
    expect(Number(/rows there holding an edit: (\d+)/.exec(report)?.[1])).toBeGreaterThan(5)
    const [, invalid, writes] = /invalid: (\d+) .*planned writes: (\d+)/.exec(report) ?? []
    expect(Number(invalid)).toBeGreaterThan(50)
    expect(Number(writes)).toBeGreaterThan(20)
    expect(Number(/server writes: (\d+)/.exec(report)?.[1])).toBe(Number(writes))
  }
  expect(run.code).toBe(0)
})
