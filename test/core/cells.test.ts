import { describe, expect, it } from 'vitest'
import { readCheckboxCell, readDateCell, readTimeCell } from '../../src/core/cells.ts'
import { localDateToSerial } from '../../src/core/serial.ts'

const MARCH_2 = localDateToSerial('2026-03-02')
const FEB_3 = localDateToSerial('2026-02-03')

describe('typed dates', () => {
  it.each([
    [MARCH_2, 'mdy', MARCH_2],
    [MARCH_2 + 1e-9, 'mdy', MARCH_2],
    ['2026-03-02', 'mdy', MARCH_2],
    ['2026-3-2', 'dmy', MARCH_2],
    [' 3/2/2026 ', 'mdy', MARCH_2],
    ['3/2/2026', 'dmy', FEB_3],
    ['02.03.2026', 'mdy', MARCH_2],
    ['2.3.2026', 'dmy', MARCH_2],
  ] as const)('%j (%s) reads as serial %i', (cell, order, serial) => {
    expect(readDateCell(cell, order)).toEqual({ ok: true, value: serial })
  })

  it.each([
    ['2026-02-30', /not a real date/],
    ['13/13/2026', /not a real date/],
    ['yesterday', /not a date/],
    ['2026/03/02 10:00', /not a date/],
    [MARCH_2 + 0.5, /time as well as a date/],
    [-3, /not a date/],
    [true, /not a date/],
  ] as const)('%j is refused', (cell, message) => {
    const r = readDateCell(cell, 'mdy')
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.message).toMatch(message)
  })
})

describe('typed times', () => {
  const s = (h: number, m: number, sec = 0) => (h * 3600 + m * 60 + sec) / 86400
  it.each([
    [0.5, false, 0.5],
    ['13:45', false, s(13, 45)],
    ['9:05', false, s(9, 5)],
    ['13:45:10', false, s(13, 45, 10)],
    ['1:45 PM', false, s(13, 45)],
    ['1:45pm', false, s(13, 45)],
    ['12:00 AM', false, 0],
    ['12:30 p.m.', false, s(12, 30)],
    ['9 AM', false, s(9, 0)],
    ['11:59:59 PM', false, s(23, 59, 59)],
    ['24:00', true, 1],
    [1.25, true, 1.25],
  ] as const)('%j (days allowed: %s) reads as %f', (cell, allowDays, fraction) => {
    expect(readTimeCell(cell, { allowDays })).toEqual({ ok: true, value: fraction })
  })

  it.each([
    ['25:00', false, /not a time/],
    ['24:00', false, /not a time/],
    ['13:60', false, /not a time/],
    ['13:45 PM', false, /1–12/],
    ['0:30 AM', false, /1–12/],
    ['1345', false, /not a time/],
    ['noon', false, /not a time/],
    [1.5, false, /date as well as a time/],
    [-0.1, true, /not a time/],
    [false, false, /not a time/],
  ] as const)('%j is refused', (cell, allowDays, message) => {
    const r = readTimeCell(cell, { allowDays })
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.message).toMatch(message)
  })
})

describe('Delete checkbox', () => {
  it.each([
    [true, true],
    ['TRUE', true],
    ['x', true],
    ['X', true],
    ['yes', true],
    [1, true],
    ['✓', true],
    [false, false],
    [null, false],
    ['', false],
    ['FALSE', false],
    [0, false],
    ['no', false],
    [undefined, false],
  ] as const)('%j → %s', (cell, ticked) => {
    expect(readCheckboxCell(cell)).toEqual({ ok: true, value: ticked })
  })

  it.each(['maybe', 2])('%j is refused', (cell) => {
    expect(readCheckboxCell(cell).ok).toBe(false)
  })
})
