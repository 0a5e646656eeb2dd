/**
 * Wall-clock readings in a time zone and the instants they name, both ways: the wall clock of an instant, the
 * local day it falls on, and the instants a wall-clock time names — none (a spring-forward gap), one, or two (the
 * repeated autumn hour) — with what the clocks did at a gap. It stands apart because this is where daylight
 * saving time is decided: the sheet times, the read windows and a row's refusal of a skipped time all rest on
 * these answers, and they must agree.
 */
import { serialToLocalDate, wallSecondsToSerial, SECONDS_PER_DAY, type LocalDate } from './serial.ts'
import { pad2 } from './instant.ts'
import { zoneOffsetMinutes } from './zone-offset.ts'

/** Wall-clock seconds (as if UTC) of an instant in a zone. */
export function wallSecondsAt(timeZone: string, epochSeconds: number): number {
  return epochSeconds + zoneOffsetMinutes(timeZone, epochSeconds) * 60
}

/** The instants whose wall clock in `timeZone` reads `wallSeconds`: 0 (gap), 1, or 2 (repeated hour), ascending. */
export function instantsForWall(timeZone: string, wallSeconds: number): number[] {
  // Offsets in force a day either side cover every transition near this wall time.
  const before = zoneOffsetMinutes(timeZone, wallSeconds - SECONDS_PER_DAY)
  const at = zoneOffsetMinutes(timeZone, wallSeconds)
  const after = zoneOffsetMinutes(timeZone, wallSeconds + SECONDS_PER_DAY)
  // Nearly every wall time lies far from a transition: one offset, one instant, no sets to build.
  if (before === at && at === after) {
    const epoch = wallSeconds - at * 60
    return zoneOffsetMinutes(timeZone, epoch) === at ? [epoch] : []
  }
  const offsets = new Set([before, at, after])
  const found = new Set<number>()
  for (const offset of offsets) {
    const epoch = wallSeconds - offset * 60
    if (zoneOffsetMinutes(timeZone, epoch) === offset) found.add(epoch)
  }
  return [...found].sort((a, b) => a - b)
}

/**
 * The one instant of a wall time far from any transition (what `instantsForWall` finds in its common case),
 * or undefined for every other wall time, which only `instantsForWall` itself decides. No array, no object.
 */
export function soleInstant(timeZone: string, wallSeconds: number): number | undefined {
  const at = zoneOffsetMinutes(timeZone, wallSeconds)
  if (
    zoneOffsetMinutes(timeZone, wallSeconds - SECONDS_PER_DAY) !== at ||
    zoneOffsetMinutes(timeZone, wallSeconds + SECONDS_PER_DAY) !== at
  )
    return undefined
  const epoch = wallSeconds - at * 60
  return zoneOffsetMinutes(timeZone, epoch) === at ? epoch : undefined
}

export type WallResolution =
  { kind: 'exact'; epochSeconds: number } | { kind: 'ambiguous'; candidates: [number, number] } | { kind: 'gap'; epochSeconds: number }

/** Resolves a wall-clock time; a non-existent one moves forward by the gap (02:30 → 03:30). */
export function resolveWall(timeZone: string, wallSeconds: number): WallResolution {
  const found = instantsForWall(timeZone, wallSeconds)
  if (found.length === 1) return { kind: 'exact', epochSeconds: found[0]! }
  if (found.length >= 2) return { kind: 'ambiguous', candidates: [found[0]!, found[found.length - 1]!] }
  // In a gap: read the wall time with the offset in force before the gap.
  const before = zoneOffsetMinutes(timeZone, wallSeconds - SECONDS_PER_DAY / 2)
  return { kind: 'gap', epochSeconds: wallSeconds - before * 60 }
}

/**
 * The first instant whose wall clock in `timeZone` reads `wallSeconds` or later: its instant, the first of two
 * (a repeated hour), or where the clocks land when they skip it (the end of a spring-forward gap).
 */
export function firstInstantFrom(timeZone: string, wallSeconds: number): number {
  const sole = soleInstant(timeZone, wallSeconds)
  if (sole !== undefined) return sole
  const r = resolveWall(timeZone, wallSeconds)
  if (r.kind === 'exact') return r.epochSeconds
  if (r.kind === 'ambiguous') return r.candidates[0]
  return gapEnd(timeZone, wallSeconds)
}

/** The instant the clocks jump at, for a wall time inside the gap they skip. */
function gapEnd(timeZone: string, wallSeconds: number): number {
  // Inside a gap, reading the wall with the later offset lands before the jump, with the earlier offset after it.
  let before = Infinity
  let after = -Infinity
  for (const delta of [-SECONDS_PER_DAY, 0, SECONDS_PER_DAY]) {
    const offset = zoneOffsetMinutes(timeZone, wallSeconds + delta)
    before = Math.min(before, offset)
    after = Math.max(after, offset)
  }
  let lo = wallSeconds - after * 60 // still the earlier offset
  let hi = wallSeconds - before * 60 // already the later one
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2)
    if (zoneOffsetMinutes(timeZone, mid) === zoneOffsetMinutes(timeZone, lo)) lo = mid
    else hi = mid
  }
  return hi
}

/** What the clocks did around a local time that does not exist: `02:00` jumps to `03:00` on `2026-03-29`. */
export interface ClockJump {
  /** The local day of the jump, `YYYY-MM-DD`. */
  date: LocalDate
  /** The last wall time before the jump, `02:00`. */
  from: string
  /** Where the clocks went, `03:00`. */
  to: string
}

/** The jump a wall time falls into when it does not exist in the zone (spring forward); undefined when it exists. */
export function clockJumpAt(timeZone: string, wallSeconds: number): ClockJump | undefined {
  // Every row asks this of its Start and End: a wall time with one instant is answered without resolving it.
  if (!Number.isFinite(wallSeconds) || soleInstant(timeZone, wallSeconds) !== undefined) return undefined
  if (resolveWall(timeZone, wallSeconds).kind !== 'gap') return undefined
  const hi = gapEnd(timeZone, wallSeconds)
  const lo = hi - 1
  const fromWall = hi + zoneOffsetMinutes(timeZone, lo) * 60
  const toWall = hi + zoneOffsetMinutes(timeZone, hi) * 60
  const date = serialToLocalDate(wallSecondsToSerial(fromWall))
  const toDate = serialToLocalDate(wallSecondsToSerial(toWall))
  // A skipped day (Samoa, 2011-12-30) jumps from one midnight to the next: name the day it lands on.
  return { date, from: clock(fromWall), to: toDate === date ? clock(toWall) : `${toDate} ${clock(toWall)}` }
}

/** The local day an instant falls on in a zone (e.g. "today" from a `now` passed in). */
export function localDateOf(timeZone: string, epochSeconds: number): LocalDate {
  return serialToLocalDate(wallSecondsToSerial(wallSecondsAt(timeZone, epochSeconds)))
}

/** `a` modulo `n`, never negative. */
export function mod(a: number, n: number): number {
  return ((a % n) + n) % n
}

/** The time of day wall-clock seconds read, `02:30` (or `02:30:15`). */
export function clock(wallSeconds: number): string {
  const s = mod(wallSeconds, SECONDS_PER_DAY)
  const hms = `${pad2(Math.floor(s / 3600))}:${pad2(Math.floor((s % 3600) / 60))}`
  return s % 60 === 0 ? hms : `${hms}:${pad2(s % 60)}`
}
