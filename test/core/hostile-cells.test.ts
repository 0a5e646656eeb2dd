/**
 * Hostile sheet input. Every value the tool cannot represent, every
 * spreadsheet error value and every local time the clocks skip makes its row
 * invalid with a Status that says what is wrong and what would be right; it
 * never reaches a conversion that could stop the run. Messages say what is
 * true (an unknown Key is not "deleted on the server"), and garbage typed over
 * the tool's own Duration is put back, not ignored.
 */
import { describe, expect, it } from 'vitest'
import { excerpt, isErrorValue, readDateCell, readTimeCell, SPREADSHEET_ERRORS } from '../../src/core/cells.ts'
import { planExport, planSync } from '../../src/core/plan.ts'
import { parseRow } from '../../src/core/row-judge.ts'
import { parseSheet, type SheetLine } from '../../src/core/sheet-lines.ts'
import { cellsToRestore, type ParsedRow } from '../../src/core/row-outcome.ts'
import { activityToCells, cellsToRow } from '../../src/core/row-write.ts'
import type { RowContext } from '../../src/core/row-context.ts'
import { activityKey } from '../../src/core/activity-key.ts'
import { chunkWindows, windowForDays } from '../../src/core/windows.ts'
import { clockJumpAt } from '../../src/core/wall-clock.ts'
import { formatOffsetInstant, parseOffsetInstant } from '../../src/core/instant.ts'
import { localDateToSerial, serialToWallSeconds } from '../../src/core/serial.ts'
import type { CellValue } from '../../src/sheets/port.ts'
import type { Activity } from '../../src/timeline/model.ts'
import { ANNA_TL, activity, context, layoutOf, serverMap, ZONE } from './fixtures.ts'

const layout = layoutOf()
const A = activity()
const KEY = activityKey(ANNA_TL, 7)

function ctxWith(...activities: Activity[]): RowContext {
  return context({
    server: serverMap(...activities.map((a) => ({ activity: a }))),
    baseKeys: new Set(activities.map((a) => activityKey(a.timelineKey, a.entityId))),
  })
}

function rowOf(a: Activity, change: Partial<Record<string, CellValue>> = {}): CellValue[] {
  return cellsToRow({ ...activityToCells(a, 'ACME\\anna', ZONE), ...change }, layout)
}

function newRow(cells: Partial<Record<string, CellValue>>): CellValue[] {
  return cellsToRow({ User: 'ACME\\anna', Date: '2026-03-02', Start: '09:00', End: '10:30', Tags: 'Acme, Website', ...cells }, layout)
}

function errorsOf(parsed: ParsedRow): { code: string; column: string | undefined; message: string }[] {
  return parsed.ok ? [] : parsed.problems.filter((p) => p.severity === 'error')
}

describe('a value the tool cannot represent makes the row invalid, never the run', () => {
  const cases: [string, Partial<Record<string, CellValue>>, string, RegExp][] = [
    [
      '9999-12-31',
      { Date: '9999-12-31', Start: '23:00', End: '01:00' },
      'Date',
      /^Date: "9999-12-31" is after 2999-12-31, the last day the tool takes — type it like 2026-03-02/,
    ],
    ['serial 2958465', { Date: 2958465 }, 'Date', /^Date: 9999-12-31 is after 2999-12-31/],
    ['serial -1', { Date: -1 }, 'Date', /^Date: -1 is not a date — type it like 2026-03-02/],
    ['serial 1e308', { Date: 1e308 }, 'Date', /^Date: 1e\+308 is not a date/],
    [
      'serial 1 (1899-12-31)',
      { Date: 1 },
      'Date',
      /^Date: 1899-12-31 is before 1970-01-01, the first day the tool takes — type it like 2026-03-02/,
    ],
    ['a typed date before 1970', { Date: '0001-01-01' }, 'Date', /^Date: "0001-01-01" is before 1970-01-01/],
    ['NaN as text', { Date: 'NaN' }, 'Date', /^Date: "NaN" is not a date/],
    [
      'a Start of 23:59:59.9999',
      { Start: 0.99999999884 },
      'Start',
      /^Start: rounds to 24:00, which is midnight of the next day; type 23:59:59 at the latest/,
    ],
    [
      'an End 1e308 days on',
      { End: 1e308 },
      'End',
      /^End: makes the activity last more than a year, the longest the tool takes — type it like 13:45.*an End of 1 or more carries whole days after Date/,
    ],
    ['an End 367 days on', { End: 367 }, 'End', /^End: makes the activity last more than a year/],
  ]
  it.each(cases)('%s', (_name, cells, column, message) => {
    const parsed = parseRow(newRow(cells), layout, context())
    expect(parsed.ok).toBe(false)
    const errors = errorsOf(parsed)
    expect(errors.map((p) => p.column)).toContain(column)
    expect(errors.find((p) => p.column === column)!.message).toMatch(message)
  })

  it('keeps an activity on the first and the last day, up to a year long; refuses a start another offset puts outside', () => {
    expect(parseRow(newRow({ Date: '2999-12-31', Start: '09:00', End: '23:59' }), layout, context())).toMatchObject({
      ok: true,
      row: { values: { input: { start: '2999-12-31T09:00:00+01:00' } } },
    })
    expect(parseRow(newRow({ Date: '1970-01-01', Start: '00:00', End: '01:00' }), layout, context())).toMatchObject({
      ok: true,
      row: { values: { input: { start: '1970-01-01T00:00:00+01:00' } } },
    })
    expect(parseRow(newRow({ Date: '2026-03-02', Start: '09:00', End: 366 + 9 / 24 }), layout, context())).toMatchObject({
      ok: true,
      row: { values: { input: { duration: 366 * 86_400 } } },
    })
    // Recorded in UTC-10, the activity at Berlin's 1970-01-01 00:30 starts on 1969-12-31 as the server keeps it.
    const elsewhere = activity({ start: '1970-01-02T00:30:00-10:00', duration: 3600 })
    const moved = parseRow(rowOf(elsewhere, { Date: '1970-01-01', Start: '00:30', End: '01:30' }), layout, ctxWith(elsewhere))
    expect(errorsOf(moved)).toMatchObject([
      {
        code: 'out-of-range',
        column: 'Date',
        message: expect.stringMatching(
          /^Date: starts in 1969 as the activity's offset reads it; the tool takes days from 1970-01-01 to 2999-12-31/,
        ),
      },
    ])
  })

  it('reads the week around the last day without leaving four-digit years', () => {
    for (const zone of ['Europe/Berlin', 'Pacific/Kiritimati', 'America/New_York', 'UTC']) {
      for (const w of [
        ...chunkWindows(zone, '9999-12-28', 7),
        ...chunkWindows(zone, '9999-12-20', 30),
        windowForDays(zone, '9999-12-31', 7),
      ]) {
        expect(parseOffsetInstant(w.from).epochSeconds).toBeLessThan(parseOffsetInstant(w.to).epochSeconds)
        expect(w.to.slice(0, 10) <= '9999-12-31').toBe(true)
      }
    }
    expect(chunkWindows('Europe/Berlin', '9999-12-28', 7)).toEqual([{ from: '9999-12-28T00:00:00+01:00', to: '9999-12-31T23:59:59+01:00' }])
  })

  it('writes an offset with seconds (local mean time) to the whole minute, keeping the instant', () => {
    const iso = formatOffsetInstant(-1_000_000_000, 19 + 32 / 60)
    expect(iso).toBe('1938-04-24T22:33:20+00:20')
    expect(parseOffsetInstant(iso).epochSeconds).toBe(-1_000_000_000)
    expect(() => formatOffsetInstant(Number.NaN, 0)).toThrow(/four-digit year/)
    expect(() => formatOffsetInstant(Date.UTC(10000, 0, 1) / 1000, 0)).toThrow(/four-digit year/)
  })

  it('reads the Date and time cells only within the range', () => {
    expect(readDateCell(25_569, 'mdy')).toEqual({ ok: true, value: 25_569 })
    expect(readDateCell(25_568, 'mdy')).toMatchObject({
      ok: false,
      message: '1969-12-31 is before 1970-01-01, the first day the tool takes',
    })
    expect(readDateCell('2999-12-31', 'mdy')).toEqual({ ok: true, value: localDateToSerial('2999-12-31') })
    expect(readDateCell('3000-01-01', 'mdy')).toMatchObject({
      ok: false,
      message: '"3000-01-01" is after 2999-12-31, the last day the tool takes',
    })
    expect(readDateCell('0099-01-01', 'mdy')).toMatchObject({
      ok: false,
      message: '"0099-01-01" is before 1970-01-01, the first day the tool takes',
    })
    expect(readTimeCell(0.99999, { allowDays: false })).toMatchObject({ ok: true })
    expect(readTimeCell(0.999999999, { allowDays: true })).toMatchObject({ ok: true })
  })

  it('quotes at most 40 characters of a cell, control characters and lone surrogates made visible', () => {
    const parsed = parseRow(newRow({ Start: `x\u0000\uD800${'y'.repeat(50_000)}` }), layout, context())
    const message = errorsOf(parsed)[0]!.message
    expect(message.length).toBeLessThan(200)
    expect(message).toContain('"x\uFFFD\uFFFDyyyy')
    expect(excerpt('ab\uD83D\uDE00cd', 3)).toBe('ab…')
  })
})

describe('spreadsheet error values are not data', () => {
  const columns = ['User', 'Date', 'Start', 'End', 'Tags', 'Labels', 'Notes', 'Delete'] as const
  it.each(columns.flatMap((column) => SPREADSHEET_ERRORS.map((error) => [column, error] as const)))('%s holding %s', (column, error) => {
    const parsed = parseRow(newRow({ [column]: error }), layout, context())
    expect(parsed.ok).toBe(false)
    const found = errorsOf(parsed).find((p) => p.code === 'error-value')
    expect(found?.column).toBe(column)
    expect(found!.message).toContain(`${column}: holds the spreadsheet error ${error}`)
  })

  it('refuses an error value in an existing row too (never sent as tags such as "#N/A, :billable")', () => {
    for (const column of ['Tags', 'Labels', 'Notes', 'Date', 'User']) {
      const parsed = parseRow(rowOf(A, { [column]: '#N/A' }), layout, ctxWith(A))
      expect(errorsOf(parsed).map((p) => [p.code, p.column])).toContainEqual(['error-value', column])
    }
    expect(errorsOf(parseRow(rowOf(A, { Key: '#REF!' }), layout, ctxWith(A)))).toMatchObject([{ code: 'error-value', column: 'Key' }])
    expect(errorsOf(parseRow(rowOf(A, { Base: '#REF!' }), layout, ctxWith(A)))).toMatchObject([{ code: 'error-value', column: 'Base' }])
  })

  it('accepts the text the tool wrote: notes or tags that equal the server value, or a row matching its Base', () => {
    const a = activity({ notes: '#N/A', tags: ['#REF!', ':#N/A'] })
    expect(parseRow(rowOf(a), layout, ctxWith(a))).toMatchObject({
      ok: true,
      row: { kind: 'existing', values: { input: { notes: '#N/A', tags: ['#REF!', ':#N/A'] } } },
    })
    const serverNow = activity({ notes: 'changed on the server since' })
    expect(parseRow(rowOf(a), layout, ctxWith(serverNow))).toMatchObject({ ok: true, row: { values: { input: { notes: '#N/A' } } } })
    expect(parseRow(rowOf(A, { Notes: '#N/A' }), layout, ctxWith(A)).ok).toBe(false)
  })

  it('knows the error values, whatever the case and spacing, and nothing else', () => {
    expect(isErrorValue(' #n/a ')).toBe(true)
    expect(isErrorValue('#GETTING_DATA')).toBe(true)
    expect(isErrorValue('#N/A, :billable')).toBe(false)
    expect(isErrorValue('#hashtag')).toBe(false)
    expect(isErrorValue(42)).toBe(false)
  })
})

describe('a local time the clocks skip is refused, not moved', () => {
  const day = localDateToSerial('2026-03-29')
  it('says what the clocks did, for Start and for End', () => {
    const start = parseRow(newRow({ Date: '2026-03-29', Start: '02:30', End: '04:00' }), layout, context())
    expect(start.ok).toBe(false)
    expect(errorsOf(start)).toEqual([
      {
        code: 'nonexistent-time',
        severity: 'error',
        column: 'Start',
        message:
          'Start: 02:30 does not exist on 2026-03-29: the clocks jump from 02:00 to 03:00 that night; type a time that exists (before 02:00 or from 03:00 on)',
      },
    ])
    const end = parseRow(newRow({ Date: '2026-03-29', Start: '01:00', End: '02:15' }), layout, context())
    expect(errorsOf(end)).toMatchObject([
      {
        code: 'nonexistent-time',
        column: 'End',
        message: expect.stringMatching(/^End: 02:15 does not exist on 2026-03-29: the clocks jump from 02:00 to 03:00/),
      },
    ])
    const overnight = parseRow(newRow({ Date: '2026-03-28', Start: '23:00', End: '02:30' }), layout, context())
    expect(errorsOf(overnight)).toMatchObject([
      { code: 'nonexistent-time', column: 'End', message: expect.stringContaining('does not exist on 2026-03-29') },
    ])
  })

  it('refuses an edit of an existing row into the gap, and leaves an unchanged row alone', () => {
    const spring = activity({ start: '2026-03-29T01:30:00+01:00', duration: 5400 })
    expect(parseRow(rowOf(spring), layout, ctxWith(spring)).ok).toBe(true)
    expect(errorsOf(parseRow(rowOf(spring, { Start: '02:15' }), layout, ctxWith(spring)))).toMatchObject([
      { code: 'nonexistent-time', column: 'Start' },
    ])
  })

  it('keeps a repeated time a warning', () => {
    const twice = parseRow(newRow({ Date: '2026-10-25', Start: '02:30', End: '04:00' }), layout, context())
    expect(twice.ok).toBe(true)
  })

  it('finds the jump in other zones and on a skipped day', () => {
    const at = (date: string, hours: number) => serialToWallSeconds(localDateToSerial(date) + hours / 24)
    expect(clockJumpAt('America/New_York', at('2026-03-08', 2.5))).toEqual({ date: '2026-03-08', from: '02:00', to: '03:00' })
    expect(clockJumpAt('Australia/Lord_Howe', at('2026-10-04', 2.25))).toEqual({ date: '2026-10-04', from: '02:00', to: '02:30' })
    expect(clockJumpAt('Pacific/Apia', at('2011-12-30', 12))).toEqual({ date: '2011-12-30', from: '00:00', to: '2011-12-31 00:00' })
    expect(clockJumpAt(ZONE, serialToWallSeconds(day + 3.5 / 24))).toBeUndefined()
  })
})

describe('messages that say what is true', () => {
  const USER = 'ACME\\anna'
  const fp = (a: Activity) => activityToCells(a, USER, ZONE).Base as string
  const existingLine = (a: Activity, baseCell: string | undefined, change: Partial<Activity> = {}, rowNumber = 2): SheetLine => {
    const edited = { ...a, ...change }
    return {
      kind: 'row',
      rowNumber,
      row: {
        kind: 'existing',
        key: activityKey(a.timelineKey, a.entityId),
        entityId: a.entityId,
        baseCell,
        warnings: [],
        values: {
          user: USER,
          timelineKey: a.timelineKey,
          input: { tags: edited.tags, notes: edited.notes, start: edited.start, duration: edited.duration },
          fingerprint: fp(edited),
        },
      },
    }
  }

  it('calls a Key the server does not have and the state never knew unknown, not deleted on the server', () => {
    const madeUp = activity({ entityId: 999 })
    for (const line of [existingLine(madeUp, fp(madeUp)), existingLine(madeUp, fp(madeUp), { notes: 'edited' })]) {
      const [d] = planSync(new Map(), [line], new Map()).decisions
      expect(d).toMatchObject({
        kind: 'invalid',
        key: activityKey(ANNA_TL, 999),
        problems: [{ code: 'unknown-key', severity: 'error', column: 'Key' }],
      })
      expect(d!.reason).toMatch(/^This activity is not on the server and the tool has no record of it/)
      expect(d!.reason).not.toMatch(/deleted on the server/)
    }
    const ticked: SheetLine = {
      kind: 'row',
      rowNumber: 2,
      row: { kind: 'delete', key: activityKey(ANNA_TL, 999), entityId: 999, timelineKey: ANNA_TL, baseCell: fp(madeUp), warnings: [] },
    }
    expect(planSync(new Map(), [ticked], new Map()).decisions).toMatchObject([
      { kind: 'invalid', reason: expect.stringMatching(/^Delete ticked on an activity that is not on the server/) },
    ])
  })

  it('keeps "deleted on the server" for an activity the state knew', () => {
    const base = new Map([[KEY, fp(A)]])
    expect(planSync(base, [existingLine(A, fp(A))], new Map()).decisions).toMatchObject([
      { kind: 'export-remove', reason: 'Deleted on the server since the last sync.' },
    ])
    expect(planSync(base, [existingLine(A, fp(A), { notes: 'edited' })], new Map()).decisions).toMatchObject([
      { kind: 'conflict', reason: expect.stringMatching(/deleted on the server since the last sync/) },
    ])
    expect(planExport(base, [existingLine(A, fp(A))], new Map()).decisions).toMatchObject([{ kind: 'export-remove' }])
  })

  it('notices garbage typed over Duration, and says which cell to put back with what', () => {
    for (const garbage of ['soon', -0.5, '#VALUE!', true, Number.NaN] as CellValue[]) {
      const parsed = parseRow(rowOf(A, { Duration: garbage }), layout, ctxWith(A))
      expect(parsed.ok).toBe(true)
      const notices = parsed.ok && parsed.row?.kind === 'existing' ? parsed.row.notices : undefined
      expect(notices).toEqual([
        {
          code: 'tool-cell-restored',
          column: 'Duration',
          value: 1.5 / 24,
          message: expect.stringMatching(/^Duration is calculated by the tool; it was restored/),
        },
      ])
      expect(cellsToRestore(notices)).toEqual({ Duration: 1.5 / 24 })
    }
    const cleared = parseRow(rowOf(A, { Duration: null }), layout, ctxWith(A))
    expect(cleared.ok && cleared.row?.kind === 'existing' && cleared.row.notices).toMatchObject([
      { column: 'Duration', message: expect.stringContaining('it was empty') },
    ])
    for (const fine of [1.5 / 24, 0, 7, '=D2-C2'] as CellValue[]) {
      const parsed = parseRow(rowOf(A, { Duration: fine }), layout, ctxWith(A))
      expect(parsed.ok && parsed.row?.kind === 'existing' && parsed.row.notices).toBeFalsy()
    }
    const fresh = parseRow(newRow({ Duration: null }), layout, context())
    expect(fresh.ok && fresh.row?.kind === 'new' && fresh.row.notices).toBeFalsy()
    expect(cellsToRestore(undefined)).toEqual({})
  })

  it('carries the notice from the row into the decision, whatever the decision', () => {
    const lines = parseSheet([rowOf(A, { Duration: 'abc' })], layout, ctxWith(A))
    const [d] = planSync(new Map([[KEY, fp(A)]]), lines, serverMap({ activity: A })).decisions
    expect(d).toMatchObject({ kind: 'noop', notices: [{ column: 'Duration', value: 1.5 / 24 }] })
    const [edited] = planSync(
      new Map([[KEY, fp(A)]]),
      parseSheet([rowOf(A, { Duration: 'abc', Notes: 'x' })], layout, ctxWith(A)),
      serverMap({ activity: activity({ notes: 'server' }) }),
    ).decisions
    expect(edited).toMatchObject({ kind: 'conflict', notices: [{ column: 'Duration' }] })
  })
})

describe('a Key on two rows plans no write for that activity', () => {
  const USER = 'ACME\\anna'
  const fp = (a: Activity) => activityToCells(a, USER, ZONE).Base as string
  it('refuses every line holding a Key another line holds, valid or not, naming the rows', () => {
    const edited = parseSheet([rowOf(A, { Notes: 'edited' })], layout, ctxWith(A))[0]!
    const garbled: SheetLine = {
      kind: 'invalid',
      rowNumber: 5,
      key: KEY,
      problems: [{ code: 'unparseable-date', severity: 'error', column: 'Date', message: 'Date: x' }],
    }
    const plan = planSync(new Map([[KEY, fp(A)]]), [edited, garbled], serverMap({ activity: A }))
    expect(plan.decisions.filter((d) => d.kind.startsWith('import-'))).toEqual([])
    expect(plan.decisions.map((d) => [d.kind, d.reason])).toEqual([
      ['invalid', expect.stringMatching(/^Key: this activity is in rows 2, 5; keep one row/)],
      ['invalid', expect.stringMatching(/^Key: this activity is in rows 2, 5; keep one row/)],
    ])
  })
})
