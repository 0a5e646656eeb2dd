/**
 * The points the kill tests kill `sync` and `restore-approved` at, in one place, so that
 * test/engine/crash-points-covered.test.ts can hold them against the crash points
 * the code declares, and each kill file against the points its uninterrupted
 * run really passes (its trace): neither list is checked against itself.
 */
import type { CrashPointName } from '../../src/engine/crash-points.ts'
import type { KillCase } from './sync-scenario.ts'

/** `name#1` … `name#n`. */
export function passes(name: CrashPointName, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${name}#${i + 1}`)
}

/** A kill's point without its pass (`name#n` → `name`). */
export function pointOf(kill: string): string {
  return kill.split('#')[0]!
}

/** The server writes' points: kill-sync-writes kills at every pass of these. */
export const SERVER_WRITE_POINTS: readonly CrashPointName[] = [
  'import:before-post',
  'import:after-post',
  'import:after-post-recorded',
  'import:before-put',
  'import:after-put',
  'import:after-put-recorded',
  'import:before-delete',
  'import:after-delete',
  'import:after-delete-recorded',
]

/** kill-sync-writes: the scenario writes 4 POSTs, 8 PUTs and 2 DELETEs (two timelines, written side by side). */
export const WRITES_KILLS = [
  ...passes('import:before-post', 4),
  ...passes('import:after-post', 4),
  ...passes('import:after-post-recorded', 4),
  ...passes('import:before-put', 8),
  ...passes('import:after-put', 8),
  ...passes('import:after-put-recorded', 8),
  ...passes('import:before-delete', 2),
  ...passes('import:after-delete', 2),
  ...passes('import:after-delete-recorded', 2),
]

/** kill-sync-recovery: every other point of the sync, killed once. */
export const RECOVERY_SINGLE = [
  'import:after-marks#1',
  'import:after-journal-open#1',
  'import:before-tags-post#1',
  'import:after-tags-post#1',
  'import:after-tags-recorded#1',
  'import:before-sheet-write#1',
  'import:after-sheet-write#1',
  'import:after-state-save#1',
  'import:after-journal-end#1',
  'export:before-sheet-write#1',
  'export:after-sheet-write#1',
  'export:after-state-save#1',
]

/** kill-sync-recovery: killed again while the next run finishes the interrupted one. */
export const RECOVERY_CHAINS: string[][] = [
  ['import:after-post#2', 'import:after-post#1'],
  ['import:after-post#3', 'import:before-sheet-write#1'],
  ['import:after-put#4', 'import:after-put-recorded#2'],
  ['import:after-tags-post#1', 'import:after-journal-end#1'],
  ['import:after-delete#1', 'import:after-close-interrupted#1'],
  ['import:after-sheet-write#1', 'export:after-sheet-write#1'],
  ['import:before-post#1', 'import:after-post-recorded#2', 'export:before-sheet-write#1'],
  ['export:after-sheet-write#1', 'export:after-sheet-write#1'],
]

/** kill-sync-google: a subset of the above against the Google backend (each kind of point once or twice, not every pass). */
export const GOOGLE_CASES: KillCase[] = [
  { kills: ['import:after-post#2'] },
  { kills: ['import:after-post-recorded#3'] },
  { kills: ['import:before-put#3'] },
  { kills: ['import:after-put#6'] },
  { kills: ['import:after-delete#1'] },
  { kills: ['import:after-tags-post#1'] },
  { kills: ['import:before-sheet-write#1'] },
  { kills: ['import:after-sheet-write#1'], check: true },
  { kills: ['export:before-sheet-write#1'] },
  { kills: ['export:after-state-save#1'] },
  { kills: ['import:after-post#1', 'import:before-sheet-write#1'], check: true },
]

/** kill-approvals: every pass each stage's uninterrupted run makes (approvals-scenario.ts). */
export const APPROVAL_KILLS = {
  approve: [
    'import:after-marks#1',
    'import:after-journal-open#1',
    'import:before-sheet-write#1',
    'import:after-approvals-save#1',
    'import:after-sheet-write#1',
    'import:after-state-save#1',
    'import:after-journal-end#1',
    'export:before-sheet-write#1',
    'export:after-sheet-write#1',
    'export:after-state-save#1',
  ],
  reopen: [
    'import:after-marks#1',
    'import:after-journal-open#1',
    ...passes('import:before-put', 1),
    ...passes('import:after-put', 1),
    ...passes('import:after-put-recorded', 1),
    ...passes('import:before-delete', 1),
    ...passes('import:after-delete', 1),
    ...passes('import:after-delete-recorded', 1),
    'import:before-sheet-write#1',
    'import:after-approvals-save#1',
    'import:after-sheet-write#1',
    'import:after-state-save#1',
    'import:after-journal-end#1',
    'export:before-sheet-write#1',
    'export:after-sheet-write#1',
    'export:after-state-save#1',
  ],
  changed: [
    'import:after-marks#1',
    'import:after-journal-open#1',
    'import:before-sheet-write#1',
    'import:after-sheet-write#1',
    'import:after-state-save#1',
    'import:after-journal-end#1',
    'export:before-sheet-write#1',
    'export:after-approvals-save#1',
    'export:after-sheet-write#1',
    'export:after-state-save#1',
  ],
  /** `restore-approved`, not sync: it puts back one retagged, re-creates one deleted and deletes one added. */
  restore: [
    ...passes('restore:before-write', 3),
    ...passes('restore:after-write', 3),
    ...passes('restore:after-write-recorded', 3),
    'restore:after-record-save#1',
  ],
} as const satisfies Record<string, readonly string[]>

/**
 * Crash points no kill test kills at, each with the reason. Keep it
 * small: a point belongs here only when another test kills at it, or it is
 * on a path no sync takes.
 */
export const NOT_KILLED_IN_SYNC: Partial<Record<CrashPointName, string>> = {
  'undo:before-write': 'undo, not sync: its writes go through the same sendJournaled as the import’s',
  'undo:after-write': 'undo, not sync: killed in test/e2e/undo-workbook.e2e.test.ts',
  'undo:after-write-recorded': 'undo, not sync: its writes go through the same sendJournaled as the import’s',
}

/** Every kill any sync kill test makes, `name#n`, in every run of its case. */
export const ALL_SYNC_KILLS: string[] = [
  ...WRITES_KILLS,
  ...RECOVERY_SINGLE,
  ...RECOVERY_CHAINS.flat(),
  ...GOOGLE_CASES.flatMap((c) => c.kills),
  ...APPROVAL_KILLS.approve,
  ...APPROVAL_KILLS.reopen,
  ...APPROVAL_KILLS.changed,
]

/** Every kill any kill test makes: the syncs' and `restore-approved`'s. */
export const ALL_KILLS: string[] = [...ALL_SYNC_KILLS, ...APPROVAL_KILLS.restore]

/**
 * The trace's check for one kill file: every pass of `covered` points the
 * uninterrupted run made is killed at by some case (`name#n`, counted from the
 * trace), and every case's first kill is a pass that run made. (A chain's later
 * kills happen in recovery runs, which pass other points: runKillCase fails
 * when one is never reached.)
 */
export function traceMismatch(
  trace: string[],
  cases: readonly KillCase[],
  covered: (point: string) => boolean,
): { passedNotKilled: string[]; killedNotPassed: string[] } {
  const seen = new Map<string, number>()
  const passed = trace.map((point) => {
    const n = (seen.get(point) ?? 0) + 1
    seen.set(point, n)
    return `${point}#${n}`
  })
  const killed = new Set(cases.flatMap((c) => c.kills))
  const passedSet = new Set(passed)
  return {
    passedNotKilled: passed.filter((p) => covered(pointOf(p)) && !killed.has(p)),
    killedNotPassed: [...new Set(cases.map((c) => c.kills[0]!))].filter((k) => !passedSet.has(k)),
  }
}
