/**
 * Named points where a run can be made to die on purpose, so tests can prove
 * that a process killed there loses nothing and duplicates nothing when run
 * again. Off unless TIMELINE_SHEETS_CRASH_AT names the point (optionally
 * `name#n` for its n-th pass); the process then exits at once with 137, as
 * if killed, without running any cleanup.
 */
const passes = new Map<string, number>()

export const CRASH_EXIT_CODE = 137

export function crashPoint(name: string, env: NodeJS.ProcessEnv = process.env): void {
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
