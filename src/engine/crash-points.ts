/**
 * Named points where a run can be made to die on purpose, so tests can prove
 * that a process killed there loses nothing and duplicates nothing when run
 * again. Off unless TIMELINE_SHEETS_CRASH_AT names the point (optionally
 * `name#n` for its n-th pass); the process then exits at once with 137, as
 * if killed, without running any cleanup.
 *
 * TIMELINE_SHEETS_CRASH_TRACE (tests) names a file each point passed appends
 * its name to, one a line: the kill tests compare the points a run really
 * passes with the ones they kill at, so a point added or removed here cannot
 * go untested unnoticed.
 */
import { appendCrashTrace } from '../state/crash-trace.ts'

/** Every crash point there is: a name not listed here does not compile, and each needs a kill case (test/engine/crash-points-covered.test.ts). */
export const CRASH_POINTS = [
  'import:after-marks',
  'import:after-journal-open',
  'import:before-tags-post',
  'import:after-tags-post',
  'import:after-tags-recorded',
  'import:before-post',
  'import:after-post',
  'import:after-post-recorded',
  'import:before-put',
  'import:after-put',
  'import:after-put-recorded',
  'import:before-delete',
  'import:after-delete',
  'import:after-delete-recorded',
  'import:before-sheet-write',
  'import:after-approvals-save',
  'import:after-sheet-write',
  'import:after-state-save',
  'import:after-journal-end',
  'import:after-close-interrupted',
  'export:before-sheet-write',
  'export:after-approvals-save',
  'export:after-sheet-write',
  'export:after-state-save',
  'undo:before-write',
  'undo:after-write',
  'undo:after-write-recorded',
  'restore:before-write',
  'restore:after-write',
  'restore:after-write-recorded',
  'restore:after-record-save',
] as const

export type CrashPointName = (typeof CRASH_POINTS)[number]

const passes = new Map<string, number>()

export const CRASH_EXIT_CODE = 137

export function crashPoint(name: CrashPointName, env: NodeJS.ProcessEnv = process.env): void {
  const trace = env['TIMELINE_SHEETS_CRASH_TRACE']
  if (trace) appendCrashTrace(trace, name)
  const wanted = env['TIMELINE_SHEETS_CRASH_AT']
  if (!wanted) return
  const [point, nth] = wanted.split('#')
  if (point !== name) return
  const count = (passes.get(name) ?? 0) + 1
  passes.set(name, count)
  if (count === Number(nth ?? 1)) {
    process.stderr.write(`crash point ${name}#${count}: exiting as if killed\n`)
    process.exit(CRASH_EXIT_CODE)
  }
}
