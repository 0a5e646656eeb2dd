/**
 * The crash-point trace (TIMELINE_SHEETS_CRASH_TRACE): off by default, it
 * appends each point passed, one a line, for the kill tests to hold their
 * cases against.
 */
import { existsSync, readdirSync } from 'node:fs'
import { mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { crashPoint } from '../../src/engine/crash-points.ts'

describe('the crash-point trace', () => {
  it('appends each point passed, one a line, in order', async () => {
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'crash-trace-')), 'trace.txt')
    const env = { TIMELINE_SHEETS_CRASH_TRACE: file }
    crashPoint('import:after-marks', env)
    crashPoint('import:before-post', env)
    crashPoint('import:before-post', env)
    expect(await readFile(file, 'utf8')).toBe('import:after-marks\nimport:before-post\nimport:before-post\n')
  })

  it('traces beside a kill at another point', async () => {
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'crash-trace-')), 'trace.txt')
    crashPoint('export:after-state-save', { TIMELINE_SHEETS_CRASH_TRACE: file, TIMELINE_SHEETS_CRASH_AT: 'import:after-marks#1' })
    expect(await readFile(file, 'utf8')).toBe('export:after-state-save\n')
  })

  it('writes nothing when off', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'crash-trace-'))
    crashPoint('import:after-marks', {})
    crashPoint('import:after-marks', { TIMELINE_SHEETS_CRASH_TRACE: '' })
    expect(readdirSync(dir)).toEqual([])
    expect(existsSync(path.join(dir, 'trace.txt'))).toBe(false)
  })
})
