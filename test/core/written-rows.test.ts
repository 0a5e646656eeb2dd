/**
 * Rows as written (decisions/0013): the digest of a row read equals the digest of the cells the tool wrote,
 * any change to a cell the row is read from changes it, and only rows that read back unedited are remembered.
 * A ticked row is never one of them.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fingerprintOf } from '../../src/core/plan.ts'
import { findCandidates } from '../../src/core/import-plan.ts'
import { judgeRow, unchangedSinceWritten } from '../../src/core/row-judge.ts'
import { activityToCells, cellsToRow } from '../../src/core/row-write.ts'
import type { CellValue, TabData } from '../../src/core/sheet.ts'
import { readSheet } from '../../src/core/sheet-readings.ts'
import { isAsWritten, READ_COLUMNS, readColumnsOf, rowDigest, writtenContext } from '../../src/core/written-rows.ts'
import { ACTIVITIES, anyCell, anyLayout, digestOfWritten, placeRow, toolRow, ZONES } from '../property/arbitraries.ts'
import { activity, ANNA_TL, layoutOf, serverMap, USERS, ZONE } from './fixtures.ts'

const layout = layoutOf()

/** The digest of cells by column name, placed in the tool's own column order. */
function cellsDigest(cells: Readonly<Partial<Record<string, CellValue>>>): number {
  return rowDigest(cellsToRow(cells, layout), readColumnsOf(layout))
}

describe('rows as written', () => {
  it('digests a row read as the cells the tool wrote, whatever the columns’ order, Status or managers’ columns', () => {
    fc.assert(
      fc.property(
        anyLayout,
        fc.constantFrom(...ACTIVITIES),
        fc.constantFrom(...ZONES),
        anyCell,
        anyCell,
        (anyOrder, a, zone, status, extra) => {
          const cells = toolRow(a, zone)
          const read = placeRow({ ...cells, Status: status }, anyOrder, extra)
          expect(rowDigest(read, readColumnsOf(anyOrder))).toBe(cellsDigest(cells))
        },
      ),
      { numRuns: 300 },
    )
  })

  it('digests a row otherwise when any cell it is read from changes, in value or in kind', () => {
    fc.assert(
      // The Key is not hashed: a digest is looked up by the Key cell's exact text, so another Key finds another digest or none.
      fc.property(
        fc.constantFrom(...ACTIVITIES),
        fc.constantFrom(...READ_COLUMNS.filter((c) => c !== 'Key')),
        anyCell,
        (a, column, value) => {
          const cells = toolRow(a, ZONE)
          fc.pre(!Object.is(cells[column], value))
          expect(cellsDigest({ ...cells, [column]: value })).not.toBe(cellsDigest(cells))
        },
      ),
      { numRuns: 500 },
    )
    const cells = toolRow(ACTIVITIES[0]!, ZONE)
    const kinds: (CellValue | undefined)[] = [1, '1', true, 'TRUE', false, '', ' ', null, undefined, 0, -0]
    const notesAt = layout.index['Notes']!
    const digests = kinds.map((value) => {
      // Placed by hand: a row as read may lack a cell (undefined) where `cellsToRow` would put no value (null).
      const row: (CellValue | undefined)[] = cellsToRow(cells, layout)
      row[notesAt] = value
      return rowDigest(row, readColumnsOf(layout))
    })
    expect(new Set(digests).size).toBe(kinds.length)
  })

  it('remembers a written row only if it reads back unedited', () => {
    const ordinary = activity()
    const digest = digestOfWritten(
      activityToCells(ordinary, 'ACME\\anna', ZONE),
      fingerprintOf({ user: 'ACME\\anna', activity: ordinary }),
      layout,
      {
        timeZone: ZONE,
        users: USERS,
      },
    )
    expect(digest).toBe(cellsDigest(activityToCells(ordinary, 'ACME\\anna', ZONE)))
    // An empty text is kept as no value, so the digest is of the cell as a read gives it back.
    const quiet = activity({ notes: undefined })
    const quietCells = activityToCells(quiet, 'ACME\\anna', ZONE)
    const quietDigest = digestOfWritten(quietCells, fingerprintOf({ user: 'ACME\\anna', activity: quiet }), layout, {
      timeZone: ZONE,
      users: USERS,
    })
    expect(quietDigest).toBe(rowDigest(cellsToRow({ ...quietCells, Notes: null }, layout), readColumnsOf(layout)))
    expect(quietDigest).not.toBe(cellsDigest(quietCells))
    // 02:10–02:40 on 2026-10-25 happens twice in Berlin; the cells alone read as the first, so the second is not remembered.
    const repeated = activity({ start: '2026-10-25T02:10:00+01:00', duration: 1800 })
    const fp = fingerprintOf({ user: 'ACME\\anna', activity: repeated })
    expect(digestOfWritten(activityToCells(repeated, 'ACME\\anna', ZONE), fp, layout, { timeZone: ZONE, users: USERS })).toBeNull()
    // A User cell that names nobody the run knows reads with a problem.
    expect(
      digestOfWritten(activityToCells(ordinary, 'ACME\\zoe', ZONE), fingerprintOf({ user: 'ACME\\zoe', activity: ordinary }), layout, {
        timeZone: ZONE,
        users: USERS,
      }),
    ).toBeNull()
  })

  it('tells a row as written only with its Key’s digest and its Base cell the state’s base', () => {
    const a = activity()
    const cells = activityToCells(a, 'ACME\\anna', ZONE)
    const row = cellsToRow(cells, layout)
    const key = cells.Key as string
    const fp = cells.Base as string
    const digests = new Map([[key, cellsDigest(cells)]])
    const columns = readColumnsOf(layout)
    const baseAt = layout.index['Base']!
    expect(isAsWritten(row, columns, key, new Map([[key, fp]]), digests, baseAt)).toBe(true)
    expect(isAsWritten(row, columns, key, new Map([[key, 'another']]), digests, baseAt)).toBe(false)
    expect(isAsWritten(row, columns, key, new Map(), digests, baseAt)).toBe(false)
    expect(isAsWritten(row, columns, key, new Map([[key, fp]]), new Map(), baseAt)).toBe(false)
    const edited = cellsToRow({ ...cells, Notes: 'Kick-off!' }, layout)
    expect(isAsWritten(edited, columns, key, new Map([[key, fp]]), digests, baseAt)).toBe(false)
  })

  it('never tells a ticked row unedited, however unedited its other cells: the import plans its deletion', () => {
    const a = activity()
    const cells = activityToCells(a, 'ACME\\anna', ZONE)
    const key = cells.Key as string
    const base = new Map([[key, cells.Base as string]])
    const written = { context: writtenContext(ZONE, USERS), digests: new Map([[key, cellsDigest(cells)]]) }
    const tab: TabData = {
      title: 'Activities',
      exists: true,
      header: [],
      rows: [cellsToRow({ ...cells, Delete: true }, layout)],
      gridRowCount: 2,
    }
    const readings = readSheet(tab, layout, { timeZone: ZONE, users: USERS }, base, written)
    expect(readings.asWritten(0)).toBe(false)
    expect(unchangedSinceWritten(readings.at(0), base)).toBe(false)
    expect(readings.uneditedDigests(base)).toEqual([])
    const candidates = findCandidates(tab, readings, new Map(), layout, base, USERS, ZONE, new Set([key]))
    expect(candidates.verdicts[0]).toBe(0)
    expect(candidates.keys.get(ANNA_TL)).toEqual(new Set([key]))
    const ctx = { timeZone: ZONE, users: USERS, server: serverMap({ activity: a }), baseKeys: new Set([key]) }
    expect(judgeRow(readings.at(0), ctx)).toMatchObject({ ok: true, row: { kind: 'delete', key } })
  })

  it('keys digests to the zone and the users they were taken under', () => {
    const context = writtenContext(ZONE, USERS)
    expect(writtenContext(ZONE, [...USERS])).toBe(context)
    expect(writtenContext('UTC', USERS)).not.toBe(context)
    expect(writtenContext(ZONE, USERS.slice(1))).not.toBe(context)
    expect(writtenContext(ZONE, [{ ...USERS[0]!, displayName: 'Anna S.' }, ...USERS.slice(1)])).not.toBe(context)
    expect(writtenContext(ZONE, [{ ...USERS[0]!, teams: [] }, ...USERS.slice(1)])).not.toBe(context)
  })
})
