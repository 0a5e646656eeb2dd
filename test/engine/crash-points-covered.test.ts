/**
 * The crash points against the kill tests: every point the code declares is
 * killed at by some sync kill case or excluded with a reason; every point a
 * case names is one the code declares; every call in src/ names a declared
 * point, and every declared point is still used — so a point added without a
 * kill case, or a case naming a point that is gone, fails here. Whether the
 * cases kill at every pass a run makes is the kill files' own check, against
 * an uninterrupted run's trace (traceMismatch, tested at the end).
 */
import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { CRASH_POINTS } from '../../src/engine/crash-points.ts'
import { ALL_KILLS, NOT_KILLED_IN_SYNC, pointOf, traceMismatch } from '../e2e/kill-cases.ts'

const declared = new Set<string>(CRASH_POINTS)

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  )
}

describe('kill cases against the crash points in src/', () => {
  it('kills at every declared point in some kill case, or excludes it with a reason', () => {
    const killed = new Set(ALL_KILLS.map(pointOf))
    const missing = CRASH_POINTS.filter((p) => !killed.has(p) && !NOT_KILLED_IN_SYNC[p]?.trim())
    expect(missing, 'crash points without a kill case in test/e2e/kill-cases.ts').toEqual([])
  })

  it('excludes only points that exist and that no kill case kills at', () => {
    const killed = new Set(ALL_KILLS.map(pointOf))
    for (const p of Object.keys(NOT_KILLED_IN_SYNC)) {
      expect(declared.has(p), p).toBe(true)
      expect(killed.has(p), `${p} is killed at: drop its exclusion`).toBe(false)
    }
  })

  it('names only declared points, each with its pass', () => {
    const wrong = ALL_KILLS.filter((k) => !/^[^#]+#[1-9]\d*$/.test(k) || !declared.has(pointOf(k)))
    expect(wrong).toEqual([])
  })

  it('finds every crashPoint name in src/ declared, and every declared point used', () => {
    // The type makes an undeclared literal fail to compile; this also catches a declared point no code passes any more.
    // Without the list's own file, which names every point.
    const files = sourceFiles(path.join(import.meta.dirname, '../../src')).filter((f) => !f.endsWith(`${path.sep}crash-points.ts`))
    const text = files.map((f) => readFileSync(f, 'utf8')).join('\n')
    const literals = [...text.matchAll(/crashPoint\(\s*'([^']+)'/g)].map((m) => m[1]!)
    expect(literals.length).toBeGreaterThan(0)
    expect(literals.filter((name) => !declared.has(name))).toEqual([])
    // Points named through a CrashPoints record (server-writer.ts) appear as string or template text elsewhere in src/.
    const mentioned = (p: string) => text.includes(`'${p}'`) || text.includes(p.replace(/(post|put|delete)/, '${op}'))
    expect(CRASH_POINTS.filter((p) => !mentioned(p))).toEqual([])
  })
})

describe('a kill file against its run’s trace', () => {
  const trace = ['import:after-marks', 'import:before-post', 'import:before-post', 'export:after-state-save']
  const all = () => true

  it('agrees when every pass is killed at and every case is a pass', () => {
    const cases = ['import:after-marks#1', 'import:before-post#1', 'import:before-post#2', 'export:after-state-save#1'].map((k) => ({
      kills: [k],
    }))
    expect(traceMismatch(trace, cases, all)).toEqual({ passedNotKilled: [], killedNotPassed: [] })
  })

  it('names a pass no case kills at (a point added, or one more write)', () => {
    const cases = ['import:after-marks#1', 'import:before-post#1', 'export:after-state-save#1'].map((k) => ({ kills: [k] }))
    expect(traceMismatch(trace, cases, all).passedNotKilled).toEqual(['import:before-post#2'])
  })

  it('names a case the run never reaches (a typo, a removed point, a pass too many)', () => {
    const cases = ['import:before-post#3', 'import:after-mraks#1', 'import:after-marks#1'].map((k) => ({ kills: [k] }))
    expect(traceMismatch(trace, cases, all).killedNotPassed).toEqual(['import:before-post#3', 'import:after-mraks#1'])
  })

  it('asks coverage only of the points the file covers, and holds a chain by its first kill', () => {
    const cases = [{ kills: ['import:before-post#1', 'import:after-close-interrupted#1'] }, { kills: ['import:before-post#2'] }]
    expect(traceMismatch(trace, cases, (p) => p === 'import:before-post')).toEqual({ passedNotKilled: [], killedNotPassed: [] })
  })
})
