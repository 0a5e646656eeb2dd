/**
 * The import's second pass leaves out, without judging them again, the rows the candidate scan found valid
 * whose activity the reads did not find and whose start lies outside the weeks read (judging every row of a
 * big sheet twice would be a fifth of an import). A shortcut may never change what the planner sees:
 * over hostile sheets, any server the reads found, any weeks read and any allowed-tags setting, the lines are
 * the same with and without the first pass's verdicts.
 *
 * It also passes on unjudged the rows in step with their Base cell, the state's base and the server's activity
 * (an `in-step` line, which the planner calls in step): there the plan must be the same as from the rows judged
 * again, but for the warnings of those rows, which nothing shows or writes for a row in step.
 *
 * Outside the timelines read in full, the engine leaves those rows out altogether, with their bases and
 * activities (`settledRows`), whatever the server did: the plan must be the one of every row judged again
 * without those rows' decisions, and every one of those must be the export's (an unchanged sheet side).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { findCandidates, planLines, settledRows } from '../../src/core/import-plan.ts'
import { readSheet } from '../../src/core/sheet-readings.ts'
import { writtenContext, type WrittenRows } from '../../src/core/written-rows.ts'
import { fingerprintOf, planSync, type BaseFingerprints, type Decision, type SyncPlan } from '../../src/core/plan.ts'
import type { HeaderLayout } from '../../src/core/columns.ts'
import { rowsByKeyText, sheetKeysOf } from '../../src/core/sheet-keys.ts'
import { judgeRow, unchangedSinceWritten } from '../../src/core/row-judge.ts'
import type { RowContext, ServerActivity } from '../../src/core/row-context.ts'
import { activityKey } from '../../src/core/activity-key.ts'
import type { CellValue } from '../../src/core/sheet.ts'
import type { TimeWindow } from '../../src/core/windows.ts'
import {
  ACTIVITIES,
  activitiesTabOf,
  anyBase,
  anyCell,
  anyLayout,
  anyRow,
  digestOfWritten,
  placeRow,
  serverOf,
  toolRow,
  withRowContext,
  writtenRow,
} from './arbitraries.ts'

const TIMELINES = [...new Set(ACTIVITIES.map((a) => a.timelineKey))]
const ALL_KEYS = [...serverOf(ACTIVITIES).keys()]

/** Weeks read per timeline: none, or a few windows somewhere around the fixture's activities. */
const anyRanges = fc
  .array(
    fc.tuple(
      fc.constantFrom(...TIMELINES),
      fc.array(fc.tuple(fc.integer({ min: -40, max: 40 }), fc.integer({ min: 1, max: 14 })), { maxLength: 3 }),
    ),
    { maxLength: TIMELINES.length },
  )
  .map((entries) => {
    const ranges = new Map<string, TimeWindow[]>()
    for (const [timelineKey, windows] of entries) {
      ranges.set(
        timelineKey,
        windows.map(([offsetDays, days]) => {
          const from = Date.UTC(2026, 2, 20) + offsetDays * 86_400_000
          return { from: iso(from), to: iso(from + days * 86_400_000) }
        }),
      )
    }
    return ranges
  })

/** A Key as the engine collects the sheet's: the trimmed text of a text cell. */
function textKeyOf(cell: CellValue | undefined): string[] {
  return typeof cell === 'string' && cell.trim() !== '' ? [cell.trim()] : []
}

/**
 * The import's second pass over one drawn world, both ways: every row judged again, and with the first pass's
 * verdicts (its shortcuts). `found`: the server's activities the reads found; the rest lie in weeks not read.
 */
function secondPasses(
  generated: RowContext,
  layout: HeaderLayout,
  rows: Record<string, CellValue>[],
  base: BaseFingerprints,
  reads: { affectedTimelines: string[]; ranges: Map<string, TimeWindow[]>; found: string[] },
  written?: WrittenRows,
) {
  const cells = rows.map((r) => placeRow(r, layout))
  const tab = activitiesTabOf(cells)
  const { slashDateOrder: _engineReadsWithoutIt, ...ctx } = generated
  const users = [...ctx.users]
  const readings = readSheet(tab, layout, { timeZone: ctx.timeZone, users }, base, written)
  const rowsOfKey = rowsByKeyText(tab, layout)
  const sheetKeys = new Set([...rowsOfKey.keys()])
  const candidates = findCandidates(tab, readings, rowsOfKey, layout, base, users, ctx.timeZone, sheetKeys)
  const second: RowContext = { ...ctx, server: new Map(reads.found.map((k) => [k, ctx.server.get(k)!])) }
  const affected = new Set([...reads.affectedTimelines, ...candidates.timelines])
  const judgedTwice = planLines(tab, readings, rowsOfKey, layout, second, affected, reads.ranges)
  const shortcut = planLines(tab, readings, rowsOfKey, layout, second, affected, reads.ranges, candidates.verdicts)
  return { cells, tab, users, readings, rowsOfKey, sheetKeys, candidates, second, affected, judgedTwice, shortcut }
}

/** A row as written with one of the cells only the tool writes changed: its Base (emptied or another's) or its Duration. */
function touchedRow(timeZone: string): fc.Arbitrary<Record<string, CellValue>> {
  return fc
    .oneof(
      fc.tuple(writtenRow(timeZone), fc.constant('Base'), anyBase),
      fc.tuple(writtenRow(timeZone), fc.constant('Duration'), fc.oneof(anyCell, fc.double({ min: 0, max: 1, noNaN: true }))),
    )
    .map(([row, column, value]) => ({ ...row, [column]: value }))
}

type ServerChange = 'none' | 'same instant in UTC' | 'later' | 'longer' | 'tags reversed' | 'a tag more' | 'a tag renamed'

/** A server activity after another writer changed it: the same instant written otherwise, another time, tags… */
function changed(s: ServerActivity, change: ServerChange): ServerActivity {
  const a = s.activity
  const utc = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z')
  switch (change) {
    case 'none':
      return s
    case 'same instant in UTC':
      return { ...s, activity: { ...a, start: utc(Date.parse(a.start)) } }
    case 'later':
      return { ...s, activity: { ...a, start: utc(Date.parse(a.start) + 3_600_000) } }
    case 'longer':
      return { ...s, activity: { ...a, duration: a.duration + 900 } }
    case 'tags reversed':
      return { ...s, activity: { ...a, tags: [...a.tags].reverse() } }
    case 'a tag more':
      return { ...s, activity: { ...a, tags: [...a.tags, 'Extra'] } }
    case 'a tag renamed':
      return { ...s, activity: { ...a, tags: ['Renamed', ...a.tags.slice(1)] } }
  }
}

/** A plan as the import acts on it: the warnings of an in-step row (noop) are never shown or written. */
function asActedOn(plan: SyncPlan): SyncPlan {
  return {
    ...plan,
    decisions: plan.decisions.map((d): Decision => (d.kind === 'noop' && d.sheet === 'unchanged' ? { ...d, warnings: [] } : d)),
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', '+00:00')
}

describe('import plan: the second pass', () => {
  it('plans the same lines with the first pass’s verdicts as without them', () => {
    fc.assert(
      fc.property(
        withRowContext((ctx) => [
          fc.array(anyRow(ctx.timeZone), { maxLength: 14 }),
          fc.subarray(ALL_KEYS),
          fc.subarray(TIMELINES),
          anyRanges,
          fc.subarray([...ctx.server.keys()]),
        ]),
        ([generated, layout, rows, baseKeys, affectedTimelines, ranges, found]) => {
          const base = new Map(baseKeys.map((k) => [k, 'fp']))
          const { cells, tab, users, readings, rowsOfKey, sheetKeys, candidates, second, affected, judgedTwice, shortcut } = secondPasses(
            generated,
            layout,
            rows,
            base,
            { affectedTimelines, ranges, found },
          )
          expect(shortcut).toEqual(judgedTwice)
          // The engine passes only the Keys several rows hold: the lines are the same as with every Key's rows.
          const { keys: textKeys, shared: sharedOnly } = sheetKeysOf(tab, layout)
          expect(sharedOnly).toEqual(new Map([...rowsOfKey].filter(([, at]) => at.length > 1)))
          expect(textKeys).toEqual(new Set(cells.flatMap((row) => textKeyOf(row[layout.index['Key']!]))))
          const fromShared = findCandidates(tab, readings, sharedOnly, layout, base, users, generated.timeZone, sheetKeys)
          expect(fromShared).toEqual(candidates)
          expect(planLines(tab, readings, sharedOnly, layout, second, affected, ranges, fromShared.verdicts)).toEqual(shortcut)
        },
      ),
      { numRuns: 400 },
    )
  })
  it('plans the same as judging every row again when rows in step with their bases are passed on unjudged or left out', () => {
    let inStep = 0
    let leftOut = 0
    let toldUnedited = 0
    let asWritten = 0
    let keptByImport = 0
    fc.assert(
      fc.property(
        withRowContext((ctx) => [
          // Rows as written weigh more: in step or not is decided by the bases and the server below.
          fc.array(fc.oneof(anyRow(ctx.timeZone), writtenRow(ctx.timeZone), touchedRow(ctx.timeZone)), { maxLength: 14 }),
          // The state's base of each activity: what the tool wrote (the activity before the server changed it), what
          // the server holds now, something else, or nothing.
          fc.array(
            fc.oneof(
              { weight: 4, arbitrary: fc.constant('written') },
              { weight: 2, arbitrary: fc.constantFrom('server', 'other', 'none') },
            ),
            { minLength: ALL_KEYS.length, maxLength: ALL_KEYS.length },
          ),
          fc.subarray(TIMELINES),
          anyRanges,
          fc.subarray([...ctx.server.keys()]),
          fc.boolean(),
          // Timelines read in full besides those of --delete-missing: an interrupted run's, a moved activity's.
          fc.subarray(TIMELINES),
          // What else the server changed of each activity since the sheet was written.
          fc.array(
            fc.oneof(
              { weight: 6, arbitrary: fc.constant<ServerChange>('none') },
              {
                weight: 6,
                arbitrary: fc.constantFrom<ServerChange>(
                  'same instant in UTC',
                  'later',
                  'longer',
                  'tags reversed',
                  'a tag more',
                  'a tag renamed',
                ),
              },
            ),
            { minLength: ALL_KEYS.length, maxLength: ALL_KEYS.length },
          ),
          // Which rows the state remembers as written (the export's digest), and under which zone and users.
          fc.array(fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }), {
            minLength: ALL_KEYS.length,
            maxLength: ALL_KEYS.length,
          }),
          fc.oneof(
            { weight: 4, arbitrary: fc.constant('this run' as const) },
            { weight: 1, arbitrary: fc.constantFrom('another zone' as const, 'other users' as const) },
          ),
        ]),
        ([drawn, layout, rows, bases, affectedTimelines, ranges, found, deleteMissing, readInFull, changes, kept, writtenUnder]) => {
          const server = new Map([...drawn.server].map(([k, s]) => [k, changed(s, changes[ALL_KEYS.indexOf(k)] ?? 'none')]))
          const generated: RowContext = { ...drawn, server }
          const written = serverOf(ACTIVITIES)
          const base = new Map<string, string>()
          ALL_KEYS.forEach((k, i) => {
            const s = bases[i] === 'written' ? written.get(k) : bases[i] === 'server' ? server.get(k) : undefined
            if (s) base.set(k, fingerprintOf(s))
            else if (bases[i] === 'other') base.set(k, 'fp')
          })
          // Digests as the export keeps them: of the rows it wrote, that read back unedited under the run's context.
          const users = [...generated.users]
          const digests = new Map<string, number>()
          for (const a of ACTIVITIES) {
            const k = activityKey(a.timelineKey, a.entityId)
            const digest = digestOfWritten(toolRow(a, generated.timeZone), fingerprintOf(written.get(k)!), layout, {
              timeZone: generated.timeZone,
              users,
            })
            if (kept[ALL_KEYS.indexOf(k)] && digest !== null) digests.set(k, digest)
          }
          const context =
            writtenUnder === 'this run'
              ? writtenContext(generated.timeZone, users)
              : writtenUnder === 'another zone'
                ? writtenContext(generated.timeZone === 'UTC' ? 'Europe/Berlin' : 'UTC', users)
                : writtenContext(generated.timeZone, users.slice(1))
          const passes = secondPasses(generated, layout, rows, base, { affectedTimelines, ranges, found }, { context, digests })
          const { second, judgedTwice, shortcut } = passes
          // A row told as written from its cells is one its reading tells unedited since written: only then.
          for (let i = 0; i < passes.readings.length; i++) {
            if (!passes.readings.asWritten(i)) continue
            asWritten++
            expect(writtenUnder).toBe('this run')
            expect(unchangedSinceWritten(passes.readings.at(i), base)).toBe(true)
          }
          // The same of the digests an applied import keeps of the rows it read in full and found unedited.
          const byImport = { context: writtenContext(generated.timeZone, users), digests: new Map(passes.readings.uneditedDigests(base)) }
          const next = readSheet(passes.tab, layout, { timeZone: generated.timeZone, users }, base, byImport)
          for (let i = 0; i < next.length; i++) {
            if (!next.asWritten(i)) continue
            keptByImport++
            expect(unchangedSinceWritten(next.at(i), base)).toBe(true)
          }
          // Every row the first pass tells unedited from its reading alone is one it would judge so.
          const firstPass: RowContext = {
            ...generated,
            server: new Map(),
            baseKeys: { has: (k) => passes.sheetKeys.has(k) || base.has(k) },
            allowedTags: undefined,
          }
          for (let i = 0; i < passes.readings.length; i++) {
            const reading = passes.readings.at(i)
            if (!unchangedSinceWritten(reading, base)) continue
            toldUnedited++
            const parsed = judgeRow(reading, firstPass)
            const row = parsed.ok && parsed.row?.kind === 'existing' ? parsed.row : undefined
            expect(row?.notices).toBeUndefined()
            expect([row?.values.fingerprint, row?.baseCell, base.get(row?.key ?? '')]).toEqual(Array(3).fill(reading.fields!.fingerprint))
          }
          inStep += shortcut.filter((l) => l.kind === 'in-step').length
          const options = deleteMissing ? { deleteMissing: true, deletedOnServer: 'mark' as const } : {}
          const everyRow = asActedOn(planSync(base, judgedTwice, second.server, options))
          expect(asActedOn(planSync(base, shortcut, second.server, options))).toEqual(everyRow)

          // The rows nobody edited left out with their bases and activities, as the engine plans: the plan is the
          // one of every row judged again without those rows' decisions, and each of those is the export's. The
          // Keys known are the state's, as the engine's are (the drawn ones alone may lack a base's Key).
          const known: RowContext = { ...second, baseKeys: { has: (k) => base.has(k) || second.baseKeys.has(k) } }
          const { tab, readings, rowsOfKey, affected, candidates } = passes
          const reference = planLines(tab, readings, rowsOfKey, layout, known, affected, ranges)
          const planned = asActedOn(planSync(base, reference, known.server, options))
          const timelineOf = (k: string) => k.slice(0, k.indexOf('/'))
          const full = new Set(readInFull)
          if (deleteMissing) for (const k of base.keys()) if (!passes.sheetKeys.has(k)) full.add(timelineOf(k))
          const settled = settledRows(readings, candidates.verdicts, { affected, full }, known)
          // Compared where the reference plans the row: a row it leaves out (a week not read) is left out either way,
          // and the engine passes no base for it.
          const lined = new Set(reference.map((l) => l.rowNumber))
          const settledKeys = new Set<string>()
          for (let i = 0; i < readings.length; i++) if (settled.rows[i] && lined.has(i + 2)) settledKeys.add(readings.keyOf(i)!.text)
          leftOut += settledKeys.size
          const lines = planLines(tab, readings, rowsOfKey, layout, known, affected, ranges, candidates.verdicts, settled.rows)
          // As the engine's: the base keeps every Key of a timeline read in full; the server's activities leave out the settled rows'.
          const planBase = new Map([...base].filter(([k]) => !settledKeys.has(k) || full.has(timelineOf(k))))
          const planServer = new Map([...known.server].filter(([k]) => !settledKeys.has(k)))
          const plan = asActedOn(planSync(planBase, lines, planServer, options))
          const theirs = planned.decisions.filter((d) => 'key' in d && d.key !== undefined && settledKeys.has(d.key))
          expect(plan.decisions).toEqual(planned.decisions.filter((d) => !theirs.includes(d)))
          for (const d of theirs) {
            expect(d.sheet).toBe('unchanged')
            expect(['noop', 'export-update', 'export-remove', 'export-mark-deleted']).toContain(d.kind)
          }
        },
      ),
      { numRuns: 600 },
    )
    // Not a property that holds by never taking the shortcut, or by never leaving a row out.
    expect(inStep).toBeGreaterThan(5)
    expect(leftOut).toBeGreaterThan(5)
    expect(toldUnedited).toBeGreaterThan(20)
    expect(asWritten).toBeGreaterThan(50)
    expect(keptByImport).toBeGreaterThan(200)
  })

  it('collects the Keys of any cells, text or not, as rowsByKeyText and the engine read them', () => {
    // A number or a tick in Key is never a Key, but its text is on a second row all the same as the text cell's.
    const pool: CellValue[] = [5, '5', ' 5 ', true, 'TRUE', false, 'tl-anna/1', ' tl-anna/1', null, '', '  ', 1.5, '1.5']
    fc.assert(
      fc.property(anyLayout, fc.array(fc.constantFrom(...pool), { maxLength: 10 }), (layout, keyCells) => {
        const cells = keyCells.map((Key) => placeRow({ Key }, layout))
        const tab = activitiesTabOf(cells)
        const { keys, shared } = sheetKeysOf(tab, layout)
        expect(shared).toEqual(new Map([...rowsByKeyText(tab, layout)].filter(([, at]) => at.length > 1)))
        expect(keys).toEqual(new Set(keyCells.flatMap(textKeyOf)))
      }),
      { numRuns: 500 },
    )
  })
})
