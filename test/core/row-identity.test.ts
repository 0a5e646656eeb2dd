/** A write planned on a read finds its rows again after a manager moved, edited or removed them. */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { locateRows, sameCells } from '../../src/core/row-identity.ts'
import type { CellValue, TabData } from '../../src/core/sheet.ts'

const KEY = 2
const tab = (rows: CellValue[][]): TabData => ({
  title: 'Activities',
  exists: true,
  header: ['User', 'Notes', 'Key'],
  rows,
  gridRowCount: rows.length + 1,
})
const row = (n: number, notes = `note ${n}`): CellValue[] => ['alice', notes, `tl/${n}`]

describe('locateRows', () => {
  it('finds every row where it is when nothing moved', () => {
    const basis = tab([row(1), row(2), row(3)])
    expect([...locateRows(basis, basis, [2, 3, 4], KEY)]).toEqual([
      [2, { kind: 'found', row: 2 }],
      [3, { kind: 'found', row: 3 }],
      [4, { kind: 'found', row: 4 }],
    ])
  })

  it('follows a sort, an inserted row and a deleted row', () => {
    const basis = tab([row(1), row(2), row(3), row(4)])
    const now = tab([row(4), [], row(3), row(1)])
    const where = locateRows(basis, now, [2, 3, 4, 5], KEY)
    expect(where.get(2)).toEqual({ kind: 'found', row: 5 })
    expect(where.get(3)).toEqual({ kind: 'gone' })
    expect(where.get(4)).toEqual({ kind: 'found', row: 4 })
    expect(where.get(5)).toEqual({ kind: 'found', row: 2 })
  })

  it('finds a row whose cells changed by its unique Key, and says it changed', () => {
    const basis = tab([row(1), row(2)])
    const now = tab([row(2, 'typed meanwhile'), row(1)])
    expect(locateRows(basis, now, [3], KEY).get(3)).toEqual({ kind: 'changed', row: 2 })
  })

  it('never takes a Key alone as identity when the basis had it on two rows', () => {
    const pasted: CellValue[] = ['alice', 'pasted', 'tl/1']
    const basis = tab([row(1), pasted])
    const now = tab([['alice', 'pasted, then edited', 'tl/1'], row(1)])
    const where = locateRows(basis, now, [2, 3], KEY)
    expect(where.get(2)).toEqual({ kind: 'found', row: 3 })
    expect(where.get(3)).toEqual({ kind: 'gone' })
  })

  it('matches identical rows one to one, nearest first', () => {
    const twin = row(7)
    const basis = tab([twin, row(1), twin])
    const now = tab([row(1), twin, twin])
    const where = locateRows(basis, now, [2, 4], KEY)
    expect(new Set([where.get(2), where.get(4)].map((w) => (w?.kind === 'found' ? w.row : 0)))).toEqual(new Set([3, 4]))
  })

  it('property: after any shuffle, insertions and deletions, a found row holds exactly the basis cells and no two basis rows share a row', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.string({ maxLength: 3 })), { minLength: 1, maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 5 }),
        fc.array(fc.nat(), { maxLength: 5 }),
        (cells, order, inserts, deletes) => {
          const basisRows: CellValue[][] = cells.map(([k, notes]) => ['alice', notes, `tl/${k}`])
          const now = basisRows.map((r, i) => ({ r, sort: order[i] ?? i }))
          now.sort((a, b) => a.sort - b.sort)
          for (const d of deletes) if (now.length > 0) now.splice(d % now.length, 1)
          const nowRows: CellValue[][] = now.map((x) => x.r)
          for (const at of inserts) nowRows.splice(at % (nowRows.length + 1), 0, ['bob', 'inserted', `tl/9${at}`])
          const basis = tab(basisRows)
          const current = tab(nowRows)
          const rows = basisRows.map((_, i) => i + 2)
          const where = locateRows(basis, current, rows, KEY)
          const taken = new Set<number>()
          for (const r of rows) {
            const w = where.get(r)!
            if (w.kind !== 'found') continue
            expect(sameCells(current.rows[w.row - 2]!, basisRows[r - 2]!)).toBe(true)
            expect(taken.has(w.row)).toBe(false)
            taken.add(w.row)
          }
          // Nothing that survived is reported lost: as many rows found as basis rows still present (multiset).
          const count = (list: CellValue[][]) => {
            const m = new Map<string, number>()
            for (const r of list) m.set(JSON.stringify(r), (m.get(JSON.stringify(r)) ?? 0) + 1)
            return m
          }
          const before = count(basisRows)
          const after = count(nowRows)
          let survivors = 0
          for (const [sig, n] of before) survivors += Math.min(n, after.get(sig) ?? 0)
          expect(taken.size).toBe(survivors)
        },
      ),
    )
  })
})
