/**
 * The behaviour every spreadsheet backend promises the engine, checked only
 * through the port. Each backend runs it with a factory for a fresh, empty
 * spreadsheet (a temp .xlsx, a Sheets API fake, a real spreadsheet) and,
 * when it can, the edits a manager makes between two runs.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { TimelineSheetsError } from '../../src/errors.ts'
import type { CellValue, Snapshot, Spreadsheet, TabData, TabSpec } from '../../src/sheets/port.ts'

/** What a person does to a tab between two runs, done the way that backend's people do it. */
export interface ManagerActions {
  /** Sorts data rows (2…) ascending by the text of the column with this header, header row untouched. */
  sortRows(tab: string, column: string): Promise<void>
  /** Inserts an empty row so that it becomes sheet row `row`; rows from there move down one. */
  insertBlankRow(tab: string, row: number): Promise<void>
  /** Removes sheet row `row`; rows below move up one. */
  deleteRow(tab: string, row: number): Promise<void>
  /**
   * Types a value into one cell (`column` 0-based, `row` 1-based). A string
   * starting with `=` is entered as a formula, as when a person types it.
   */
  editCell(tab: string, row: number, column: number, value: CellValue): Promise<void>
}

export interface SpreadsheetFixture {
  spreadsheet: Spreadsheet
  cleanup(): Promise<void>
  actAsManager?: ManagerActions
}

export interface SpreadsheetContractOptions {
  /**
   * Run the tests that need `actAsManager`; they fail when the fixture has none.
   * @default true
   */
  managerActions?: boolean
}

const ACTIVITIES = 'Activities'
const ALLOWED = 'Allowed tags'
const LOG = 'Sync log'

/** The tabs the suite lays out: the product's three, with every column kind. */
export const CONTRACT_TABS: TabSpec[] = [
  {
    title: ACTIVITIES,
    statusColumn: 'Status',
    columns: [
      { name: 'User', kind: 'text', width: 160 },
      { name: 'Date', kind: 'date', width: 90 },
      { name: 'Start', kind: 'time', width: 60 },
      { name: 'End', kind: 'time', width: 60 },
      { name: 'Duration', kind: 'duration', width: 70, protected: true },
      { name: 'Tags', kind: 'text', width: 220, dropdown: { tab: ALLOWED, column: 'Tags' } },
      { name: 'Labels', kind: 'text', width: 120 },
      { name: 'Notes', kind: 'text', width: 260, wrap: true },
      { name: 'Delete', kind: 'checkbox', width: 60 },
      { name: 'Status', kind: 'text', width: 200, protected: true },
      { name: 'Key', kind: 'text', hidden: true, protected: true },
      { name: 'Base', kind: 'text', hidden: true, protected: true },
    ],
  },
  {
    title: ALLOWED,
    columns: [
      { name: 'Applies to', kind: 'text', width: 160 },
      { name: 'Tags', kind: 'text', width: 300 },
    ],
  },
  {
    title: LOG,
    readOnly: true,
    columns: [
      { name: 'When', kind: 'datetime', width: 130 },
      { name: 'What', kind: 'text', width: 100 },
      { name: 'Rows', kind: 'number', width: 60 },
      { name: 'Run id', kind: 'text', width: 200 },
    ],
  },
]

const LAYOUT = { timeZone: 'Europe/Berlin' }
const HEADER = CONTRACT_TABS[0]!.columns.map((column) => column.name)
const KEY = HEADER.indexOf('Key')
const NOTES = HEADER.indexOf('Notes')

/** An Activities row whose Key and Notes carry `n`; other cells typical of an export. */
export function activityRow(n: number): CellValue[] {
  return [
    'DOMAIN\\alice',
    45293 + (n % 30),
    0.375,
    0.5,
    0.125,
    'Client, Project, Task',
    ':billable',
    `note ${String(n).padStart(5, '0')}`,
    false,
    'ok',
    `tags-alice/${n}`,
    `fp-${n}`,
  ]
}

function keysOf(tab: TabData): Array<CellValue | undefined> {
  return tab.rows.map((row) => row[KEY])
}

/** The sheet row (1-based) holding the activity with this Key in a snapshot, found by content as the engine does. */
export function rowOfKey(tab: TabData, key: string): number {
  const index = tab.rows.findIndex((row) => row[KEY] === key)
  if (index < 0) throw new Error(`Key ${key} is not in tab ${tab.title}`)
  return index + 2
}

function tab(snapshot: Snapshot, title: string): TabData {
  const found = snapshot.tabs[title]
  if (found === undefined) throw new Error(`The snapshot has no entry for ${title}`)
  return found
}

/**
 * A tab's rows without the empty rows a removal leaves behind: both backends empty a removed row in place
 * (decisions/0030; on Google a positional row removal could hit another row if a person sorted at that moment).
 */
function withoutEmptyRows(data: TabData): TabData {
  return { ...data, rows: data.rows.filter((row) => row.length > 0) }
}

function noEmptyStrings(snapshot: Snapshot): void {
  for (const data of Object.values(snapshot.tabs)) {
    for (const row of [data.header, ...data.rows]) expect(row).not.toContain('')
  }
}

/** Registers the contract for one backend; `factory` makes a fresh empty spreadsheet per test. */
export function describeSpreadsheetContract(
  name: string,
  factory: () => Promise<SpreadsheetFixture>,
  options: SpreadsheetContractOptions = {},
): void {
  describe(`spreadsheet contract: ${name}`, () => {
    let fixture: SpreadsheetFixture
    let sheet: Spreadsheet

    beforeEach(async () => {
      fixture = await factory()
      sheet = fixture.spreadsheet
    })
    afterEach(async () => {
      await fixture.cleanup()
    })

    async function laidOut(): Promise<void> {
      await sheet.ensureLayout(CONTRACT_TABS, LAYOUT)
    }

    async function withRows(count: number): Promise<Snapshot> {
      await laidOut()
      const empty = await sheet.read([ACTIVITIES])
      await sheet.write([{ tab: ACTIVITIES, appends: Array.from({ length: count }, (_, i) => activityRow(i + 1)) }], empty)
      return sheet.read([ACTIVITIES])
    }

    describe('layout', () => {
      it('creates every tab with its header and no data rows', async () => {
        const report = await sheet.ensureLayout(CONTRACT_TABS, LAYOUT)
        expect(report.changed).toBe(true)
        expect([...report.createdTabs].sort()).toEqual([ACTIVITIES, ALLOWED, LOG].sort())
        const snapshot = await sheet.read([ACTIVITIES, ALLOWED, LOG])
        for (const spec of CONTRACT_TABS) {
          const data = tab(snapshot, spec.title)
          expect(data).toMatchObject({ title: spec.title, exists: true, rows: [] })
          expect(data.header).toEqual(spec.columns.map((column) => column.name))
        }
      })

      it('is idempotent: a second call changes nothing and says so', async () => {
        await laidOut()
        expect(await sheet.ensureLayout(CONTRACT_TABS, LAYOUT)).toEqual({ createdTabs: [], changed: false })
      })

      it('adds a new tab later without touching the data of the others', async () => {
        await withRows(2)
        const extra: TabSpec = { title: 'Computer usage', readOnly: true, columns: [{ name: 'Date', kind: 'date' }] }
        const report = await sheet.ensureLayout([...CONTRACT_TABS, extra], LAYOUT)
        expect(report).toEqual({ createdTabs: ['Computer usage'], changed: true })
        const snapshot = await sheet.read([ACTIVITIES, 'Computer usage'])
        expect(tab(snapshot, ACTIVITIES).rows).toEqual([activityRow(1), activityRow(2)])
        expect(tab(snapshot, 'Computer usage').header).toEqual(['Date'])
      })
    })

    describe('read', () => {
      it('reports tabs that do not exist, before and after layout', async () => {
        const before = await sheet.read([ACTIVITIES, 'Nope'])
        expect(tab(before, ACTIVITIES)).toEqual({ title: ACTIVITIES, exists: false, header: [], rows: [], gridRowCount: 0 })
        await laidOut()
        const after = await sheet.read([ACTIVITIES, 'Nope'])
        expect(tab(after, 'Nope')).toEqual({ title: 'Nope', exists: false, header: [], rows: [], gridRowCount: 0 })
        expect(tab(after, ACTIVITIES).exists).toBe(true)
      })

      it('counts grid rows at least as far as the data goes', async () => {
        const snapshot = await withRows(3)
        expect(tab(snapshot, ACTIVITIES).gridRowCount).toBeGreaterThanOrEqual(4)
      })
    })

    describe('write relative to the basis', () => {
      it('updates, removes rows above updated rows and appends after the removals, in one write', async () => {
        const basis = await withRows(5)
        const data = tab(basis, ACTIVITIES)
        const report = await sheet.write(
          [
            {
              tab: ACTIVITIES,
              updates: [
                { row: rowOfKey(data, 'tags-alice/2'), column: NOTES, values: ['second, edited'] },
                { row: rowOfKey(data, 'tags-alice/4'), column: NOTES, values: ['fourth, edited', true] },
              ],
              deleteRows: [rowOfKey(data, 'tags-alice/1'), rowOfKey(data, 'tags-alice/3')],
              appends: [activityRow(6), activityRow(7)],
            },
          ],
          basis,
        )
        const after = tab(await sheet.read([ACTIVITIES]), ACTIVITIES)
        // The removed rows stay as empty rows where they were; the appends go after the basis's last row.
        expect(report.appended[ACTIVITIES]).toEqual({ firstRow: 7, count: 2 })
        expect(after.rows[0]).toEqual([])
        expect(after.rows[2]).toEqual([])
        const remaining = withoutEmptyRows(after)
        expect(keysOf(remaining)).toEqual(['tags-alice/2', 'tags-alice/4', 'tags-alice/5', 'tags-alice/6', 'tags-alice/7'])
        expect(remaining.rows[0]![NOTES]).toBe('second, edited')
        expect(remaining.rows[1]!.slice(NOTES, NOTES + 2)).toEqual(['fourth, edited', true])
        expect(remaining.rows[2]).toEqual(activityRow(5))
        expect(remaining.rows[4]).toEqual(activityRow(7))
      })

      it('appends right under the header of an empty tab', async () => {
        await laidOut()
        const basis = await sheet.read([ACTIVITIES])
        const report = await sheet.write([{ tab: ACTIVITIES, appends: [activityRow(1)] }], basis)
        expect(report.appended[ACTIVITIES]).toEqual({ firstRow: 2, count: 1 })
        expect(tab(await sheet.read([ACTIVITIES]), ACTIVITIES).rows).toEqual([activityRow(1)])
      })

      it('reports no append for a tab it only updated', async () => {
        const basis = await withRows(1)
        const report = await sheet.write([{ tab: ACTIVITIES, updates: [{ row: 2, column: NOTES, values: ['x'] }] }], basis)
        expect(report.appended[ACTIVITIES]).toBeUndefined()
      })

      it('removes every data row when asked, leaving the header', async () => {
        const basis = await withRows(3)
        await sheet.write([{ tab: ACTIVITIES, deleteRows: [4, 2, 3] }], basis)
        const after = tab(await sheet.read([ACTIVITIES]), ACTIVITIES)
        expect(after.rows).toEqual([])
        expect(after.header).toEqual(HEADER)
      })

      it('writes several tabs in one call', async () => {
        await laidOut()
        const basis = await sheet.read([ACTIVITIES, ALLOWED, LOG])
        const report = await sheet.write(
          [
            { tab: ACTIVITIES, appends: [activityRow(1)] },
            {
              tab: ALLOWED,
              appends: [
                ['everyone', 'Client, Project, Task'],
                ['{Team}', 'Internal, Admin'],
              ],
            },
            { tab: LOG, appends: [[45293.5, 'export', 1, 'run-1']] },
          ],
          basis,
        )
        expect(report.appended).toEqual({
          [ACTIVITIES]: { firstRow: 2, count: 1 },
          [ALLOWED]: { firstRow: 2, count: 2 },
          [LOG]: { firstRow: 2, count: 1 },
        })
        const after = await sheet.read([ACTIVITIES, ALLOWED, LOG])
        expect(tab(after, ALLOWED).rows).toEqual([
          ['everyone', 'Client, Project, Task'],
          ['{Team}', 'Internal, Admin'],
        ])
        expect(tab(after, LOG).rows).toEqual([[45293.5, 'export', 1, 'run-1']])
        expect(tab(after, ACTIVITIES).rows).toEqual([activityRow(1)])
      })

      it('rejects a write to a tab that does not exist and changes nothing', async () => {
        const basis = await withRows(1)
        const missing = sheet.write(
          [
            { tab: ACTIVITIES, updates: [{ row: 2, column: NOTES, values: ['must not land'] }] },
            { tab: 'Nope', appends: [['x']] },
          ],
          { tabs: { ...basis.tabs, Nope: { title: 'Nope', exists: false, header: [], rows: [], gridRowCount: 0 } } },
        )
        await expect(missing).rejects.toBeInstanceOf(TimelineSheetsError)
        expect(tab(await sheet.read([ACTIVITIES]), ACTIVITIES).rows).toEqual([activityRow(1)])
      })

      it('counts the write it made', async () => {
        await laidOut()
        const basis = await sheet.read([ACTIVITIES])
        const before = sheet.requestCounts()
        await sheet.write([{ tab: ACTIVITIES, appends: [activityRow(1)] }], basis)
        const after = sheet.requestCounts()
        expect(after.writes).toBeGreaterThan(before.writes)
        expect(after.reads).toBeGreaterThanOrEqual(before.reads)
      })

      it('writes and reads back 2,000 rows of 12 columns', async () => {
        const snapshot = await withRows(2000)
        const data = tab(snapshot, ACTIVITIES)
        expect(data.rows).toHaveLength(2000)
        expect(data.rows[0]).toEqual(activityRow(1))
        expect(data.rows[1999]).toEqual(activityRow(2000))
        expect(new Set(keysOf(data)).size).toBe(2000)
      })
    })

    describe('trimming, as Google trims', () => {
      it('drops trailing empty cells and rows, keeps interior empty cells as null and empty rows as []', async () => {
        await laidOut()
        const basis = await sheet.read([ALLOWED])
        await sheet.write([{ tab: ALLOWED, appends: [['everyone', null, null], [], [null, 'only tags'], [null, ''], ['', null]] }], basis)
        const data = tab(await sheet.read([ALLOWED]), ALLOWED)
        expect(data.rows).toEqual([['everyone'], [], [null, 'only tags']])
      })

      it('treats null and "" alike when writing: both leave the cell empty', async () => {
        const basis = await withRows(1)
        await sheet.write([{ tab: ACTIVITIES, updates: [{ row: 2, column: 6, values: ['', null] }] }], basis)
        const snapshot = await sheet.read([ACTIVITIES])
        const row = tab(snapshot, ACTIVITIES).rows[0]!
        expect(row.slice(5, 9)).toEqual(['Client, Project, Task', null, null, false])
        noEmptyStrings(snapshot)
      })

      it('drops a last row whose cells were all cleared', async () => {
        const basis = await withRows(2)
        await sheet.write([{ tab: ACTIVITIES, updates: [{ row: 3, column: 0, values: HEADER.map(() => null) }] }], basis)
        expect(keysOf(tab(await sheet.read([ACTIVITIES]), ACTIVITIES))).toEqual(['tags-alice/1'])
      })

      it('reads an emptied row between data rows as []', async () => {
        const basis = await withRows(3)
        await sheet.write([{ tab: ACTIVITIES, updates: [{ row: 3, column: 0, values: HEADER.map(() => '') }] }], basis)
        const rows = tab(await sheet.read([ACTIVITIES]), ACTIVITIES).rows
        expect(rows).toEqual([activityRow(1), [], activityRow(3)])
      })
    })

    describe('value types round-trip', () => {
      const texts = [
        '=IMPORTDATA("https://example.com/x.csv")',
        '=A2+1',
        '0042',
        '+1 555 0100',
        '-5',
        '2024-01-02',
        '13:45',
        'TRUE',
        '50%',
        "'quoted",
        'line one\nline two\n',
        'Zoë — 東京 · 🚀 · ‏עברית',
        '  padded  ',
      ]

      it.each(texts)('text %j stays that exact text', async (text) => {
        const basis = await withRows(1)
        await sheet.write([{ tab: ACTIVITIES, updates: [{ row: 2, column: NOTES, values: [text] }] }], basis)
        expect(tab(await sheet.read([ACTIVITIES]), ACTIVITIES).rows[0]![NOTES]).toBe(text)
      })

      it('numbers, booleans and text keep their types', async () => {
        await laidOut()
        const basis = await sheet.read([LOG, ACTIVITIES])
        await sheet.write(
          [
            {
              tab: LOG,
              appends: [
                [45293.5, 'export', 0, 'a'],
                [45293.5, 'import', -3.25, 'b'],
                [45293.5, 'x', 1234567.891, 'c'],
                [45293.5, 'y', 0.1 + 0.2, 'd'],
              ],
            },
            {
              tab: ACTIVITIES,
              appends: [
                [...activityRow(1).slice(0, 8), true],
                [...activityRow(2).slice(0, 8), false],
              ],
            },
          ],
          basis,
        )
        const after = await sheet.read([LOG, ACTIVITIES])
        expect(tab(after, LOG).rows.map((row) => row[2])).toEqual([0, -3.25, 1234567.891, 0.1 + 0.2])
        expect(tab(after, ACTIVITIES).rows.map((row) => row[8])).toEqual([true, false])
      })

      it('dates, times, datetimes and durations come back as serials, to the second', async () => {
        await laidOut()
        const basis = await sheet.read([ACTIVITIES, LOG])
        // 2024-01-02; 09:00:01.5; 17:59:59; 36 hours; 2024-01-02 10:00 and 1899-12-31 00:00:01
        const date = 45293
        const start = (9 * 3600 + 1.5) / 86400
        const end = (17 * 3600 + 59 * 60 + 59) / 86400
        const duration = 1.5
        const datetimes = [45293 + 10 / 24, 1 + 1 / 86400, 60.5, 2958465.999988426]
        await sheet.write(
          [
            { tab: ACTIVITIES, appends: [['DOMAIN\\bob', date, start, end, duration]] },
            { tab: LOG, appends: datetimes.map((when, i) => [when, 'run', i, `r${i}`]) },
          ],
          basis,
        )
        const after = await sheet.read([ACTIVITIES, LOG])
        const row = tab(after, ACTIVITIES).rows[0]!
        expect(row[1]).toBe(date)
        const seconds = (value: CellValue | undefined): number => Math.round(Number(value) * 86400)
        expect(row.slice(2, 5).map(seconds)).toEqual([start, end, duration].map(seconds))
        expect(row.slice(2, 5).every((value) => typeof value === 'number')).toBe(true)
        expect(tab(after, LOG).rows.map((logRow) => seconds(logRow[0]))).toEqual(datetimes.map(seconds))
      })
    })

    if (options.managerActions ?? true) {
      describe('row identity survives what managers do between runs', () => {
        function manager(): ManagerActions {
          if (fixture.actAsManager === undefined) throw new Error(`${name}: the fixture supplies no manager actions`)
          return fixture.actAsManager
        }

        it('sees a manager’s edit on the next read, and a typed formula as its text', async () => {
          await withRows(2)
          await manager().editCell(ACTIVITIES, 3, NOTES, 'typed by a manager')
          await manager().editCell(ACTIVITIES, 2, 6, '=1+1')
          const rows = tab(await sheet.read([ACTIVITIES]), ACTIVITIES).rows
          expect(rows[1]![NOTES]).toBe('typed by a manager')
          expect(rows[0]![6]).toBe('=1+1')
        })

        it('after a sort, finds every row by its Key and updates the right one', async () => {
          const basis = await withRows(5)
          const data = tab(basis, ACTIVITIES)
          // Notes in the reverse order of the keys, so sorting by Notes reverses the rows.
          const reversed = [...data.rows].reverse()
          await sheet.write(
            [
              {
                tab: ACTIVITIES,
                updates: reversed.map((row, i) => ({ row: rowOfKey(data, String(row[KEY])), column: NOTES, values: [`n${i}`] })),
              },
            ],
            basis,
          )
          await manager().sortRows(ACTIVITIES, 'Notes')
          const sorted = tab(await sheet.read([ACTIVITIES]), ACTIVITIES)
          expect(keysOf(sorted)).toEqual(['tags-alice/5', 'tags-alice/4', 'tags-alice/3', 'tags-alice/2', 'tags-alice/1'])
          expect(sorted.header).toEqual(HEADER)
          const target = rowOfKey(sorted, 'tags-alice/2')
          await sheet.write(
            [{ tab: ACTIVITIES, updates: [{ row: target, column: 9, values: ['conflict: both sides changed'] }] }],
            await sheet.read([ACTIVITIES]),
          )
          const after = tab(await sheet.read([ACTIVITIES]), ACTIVITIES)
          expect(after.rows[rowOfKey(after, 'tags-alice/2') - 2]![9]).toBe('conflict: both sides changed')
          expect(after.rows.filter((row) => row[9] !== 'ok')).toHaveLength(1)
        })

        it('reads an inserted blank row as [] and still finds the rows below it by Key', async () => {
          await withRows(3)
          await manager().insertBlankRow(ACTIVITIES, 3)
          const data = tab(await sheet.read([ACTIVITIES]), ACTIVITIES)
          expect(keysOf(data)).toEqual(['tags-alice/1', undefined, 'tags-alice/2', 'tags-alice/3'])
          expect(data.rows[1]).toEqual([])
          await sheet.write([{ tab: ACTIVITIES, deleteRows: [rowOfKey(data, 'tags-alice/3')], appends: [activityRow(4)] }], {
            tabs: { [ACTIVITIES]: data },
          })
          const after = tab(await sheet.read([ACTIVITIES]), ACTIVITIES)
          expect(keysOf(after)).toEqual(['tags-alice/1', undefined, 'tags-alice/2', undefined, 'tags-alice/4'])
        })

        describe('a write planned on a read lands on the rows it read, whatever a manager did in between', () => {
          /** Notes by Key, from a read. */
          const notesByKey = (data: TabData) => new Map(data.rows.filter((r) => r.length > 0).map((r) => [r[KEY], r[NOTES]]))
          /** Updates the Notes of every basis row to `n:<its key>`, addressed by basis position. */
          const noteEveryRow = (basis: Snapshot) =>
            sheet.write(
              [
                {
                  tab: ACTIVITIES,
                  keyColumn: KEY,
                  updates: tab(basis, ACTIVITIES).rows.map((row, i) => ({ row: i + 2, column: NOTES, values: [`n:${String(row[KEY])}`] })),
                },
              ],
              basis,
            )

          it('follows rows a manager sorted', async () => {
            await withRows(5)
            // Notes in the reverse order of the keys, so sorting by Notes reverses the rows.
            const first = await sheet.read([ACTIVITIES])
            await sheet.write(
              [{ tab: ACTIVITIES, updates: [2, 3, 4, 5, 6].map((row) => ({ row, column: NOTES, values: [`z${8 - row}`] })) }],
              first,
            )
            const basis = await sheet.read([ACTIVITIES])
            await manager().sortRows(ACTIVITIES, 'Notes')
            const report = await noteEveryRow(basis)
            expect(report.skipped).toEqual([])
            const after = tab(await sheet.read([ACTIVITIES]), ACTIVITIES)
            expect(keysOf(after)).toEqual(['tags-alice/5', 'tags-alice/4', 'tags-alice/3', 'tags-alice/2', 'tags-alice/1'])
            for (const [key, notes] of notesByKey(after)) expect(notes).toBe(`n:${String(key)}`)
          })

          it('follows rows pushed down by an inserted row, and leaves the new row alone', async () => {
            const basis = await withRows(4)
            await manager().insertBlankRow(ACTIVITIES, 3)
            await manager().editCell(ACTIVITIES, 3, NOTES, 'typed into the new row')
            const report = await noteEveryRow(basis)
            expect(report.skipped).toEqual([])
            const after = tab(await sheet.read([ACTIVITIES]), ACTIVITIES)
            expect(after.rows[1]).toEqual([null, null, null, null, null, null, null, 'typed into the new row'])
            for (const [key, notes] of notesByKey(after)) if (key !== undefined) expect(notes).toBe(`n:${String(key)}`)
          })

          it('skips a row a manager deleted and writes the rows that moved up into its place where they belong', async () => {
            const basis = await withRows(4)
            await manager().deleteRow(ACTIVITIES, 3)
            const report = await noteEveryRow(basis)
            expect(report.skipped).toEqual([{ tab: ACTIVITIES, row: 3, reason: 'gone' }])
            const after = tab(await sheet.read([ACTIVITIES]), ACTIVITIES)
            expect(keysOf(after)).toEqual(['tags-alice/1', 'tags-alice/3', 'tags-alice/4'])
            for (const [key, notes] of notesByKey(after)) expect(notes).toBe(`n:${String(key)}`)
          })

          it('never overwrites a cell a manager typed into since the read', async () => {
            const basis = await withRows(3)
            await manager().editCell(ACTIVITIES, 3, NOTES, 'typed meanwhile')
            const report = await noteEveryRow(basis)
            expect(report.skipped).toEqual([{ tab: ACTIVITIES, row: 3, reason: 'changed' }])
            const after = tab(await sheet.read([ACTIVITIES]), ACTIVITIES)
            expect(after.rows[1]![NOTES]).toBe('typed meanwhile')
            expect(after.rows[0]![NOTES]).toBe('n:tags-alice/1')
            expect(after.rows[2]![NOTES]).toBe('n:tags-alice/3')
          })

          it('writes the cells a manager did not touch in a row they typed into, and keeps what they typed', async () => {
            const basis = await withRows(3)
            await manager().editCell(ACTIVITIES, 3, 6, ':edited-meanwhile')
            const report = await sheet.write(
              [{ tab: ACTIVITIES, keyColumn: KEY, updates: [{ row: 3, column: NOTES, values: ['written'] }] }],
              basis,
            )
            expect(report.skipped).toEqual([])
            const after = tab(await sheet.read([ACTIVITIES]), ACTIVITIES)
            expect(after.rows[1]![6]).toBe(':edited-meanwhile')
            expect(after.rows[1]![NOTES]).toBe('written')
          })

          it('does not remove a row a manager typed into since the read', async () => {
            const basis = await withRows(3)
            await manager().editCell(ACTIVITIES, 3, 6, ':edited-meanwhile')
            const report = await sheet.write([{ tab: ACTIVITIES, keyColumn: KEY, deleteRows: [3] }], basis)
            expect(report.skipped).toEqual([{ tab: ACTIVITIES, row: 3, reason: 'changed' }])
            expect(keysOf(tab(await sheet.read([ACTIVITIES]), ACTIVITIES))).toEqual(['tags-alice/1', 'tags-alice/2', 'tags-alice/3'])
          })

          it('removes the row it read, not the one a sort put at that position', async () => {
            await withRows(4)
            const first = await sheet.read([ACTIVITIES])
            await sheet.write(
              [{ tab: ACTIVITIES, updates: [2, 3, 4, 5].map((row) => ({ row, column: NOTES, values: [`z${9 - row}`] })) }],
              first,
            )
            const basis = await sheet.read([ACTIVITIES])
            await manager().sortRows(ACTIVITIES, 'Notes')
            const report = await sheet.write(
              [{ tab: ACTIVITIES, keyColumn: KEY, deleteRows: [rowOfKey(tab(basis, ACTIVITIES), 'tags-alice/2')] }],
              basis,
            )
            expect(report.skipped).toEqual([])
            const after = withoutEmptyRows(tab(await sheet.read([ACTIVITIES]), ACTIVITIES))
            expect(keysOf(after)).toEqual(['tags-alice/4', 'tags-alice/3', 'tags-alice/1'])
          })

          it('tells two rows with the same Key apart by their content, after a sort', async () => {
            const basis0 = await withRows(3)
            // A manager pastes row 2's Key into a new row below and types other values there.
            const pasted = [...activityRow(2)]
            pasted[NOTES] = 'pasted copy'
            pasted[1] = 45300
            await sheet.write([{ tab: ACTIVITIES, appends: [pasted] }], basis0)
            const basis = await sheet.read([ACTIVITIES])
            await manager().sortRows(ACTIVITIES, 'Notes')
            const data = tab(basis, ACTIVITIES)
            const report = await sheet.write(
              [
                {
                  tab: ACTIVITIES,
                  keyColumn: KEY,
                  updates: [
                    { row: 3, column: 9, values: ['status of the original'] },
                    { row: 5, column: 9, values: ['status of the copy'] },
                  ],
                },
              ],
              basis,
            )
            expect(data.rows[3]![NOTES]).toBe('pasted copy')
            expect(report.skipped).toEqual([])
            const after = tab(await sheet.read([ACTIVITIES]), ACTIVITIES)
            const byNotes = new Map(after.rows.map((r) => [r[NOTES], r[9]]))
            expect(byNotes.get('pasted copy')).toBe('status of the copy')
            expect(byNotes.get(activityRow(2)[NOTES])).toBe('status of the original')
            expect(byNotes.get(activityRow(1)[NOTES])).toBe('ok')
          })

          it('writes to the row a Key was pasted onto, not to the row that first had it', async () => {
            await laidOut()
            // Rows written with their Key column, as the engine writes them (Google anchors them).
            await sheet.write([{ tab: ACTIVITIES, keyColumn: KEY, appends: [1, 2, 3].map(activityRow) }], await sheet.read([ACTIVITIES]))
            await manager().editCell(ACTIVITIES, 2, KEY, 'garbled')
            await manager().editCell(ACTIVITIES, 4, KEY, 'tags-alice/1')
            const basis = await sheet.read([ACTIVITIES])
            const report = await sheet.write(
              [{ tab: ACTIVITIES, keyColumn: KEY, updates: [{ row: 4, column: NOTES, values: ['for the row holding the Key now'] }] }],
              basis,
            )
            expect(report.skipped).toEqual([])
            const after = tab(await sheet.read([ACTIVITIES]), ACTIVITIES)
            expect(after.rows[2]![NOTES]).toBe('for the row holding the Key now')
            expect(after.rows[0]![NOTES]).toBe(activityRow(1)[NOTES])
          })

          it('finds a row without a Key by its content after a sort', async () => {
            const basis0 = await withRows(2)
            const typed: CellValue[] = ['DOMAIN\\alice', 45300, 0.5, 0.6, null, 'Client, Project', null, 'a new row typed by a manager']
            await sheet.write([{ tab: ACTIVITIES, appends: [typed] }], basis0)
            const basis = await sheet.read([ACTIVITIES])
            await manager().sortRows(ACTIVITIES, 'Notes')
            const report = await sheet.write(
              [{ tab: ACTIVITIES, keyColumn: KEY, updates: [{ row: 4, column: KEY, values: ['tags-alice/99', 'fp-99'] }] }],
              basis,
            )
            expect(report.skipped).toEqual([])
            const after = tab(await sheet.read([ACTIVITIES]), ACTIVITIES)
            const row = after.rows.find((r) => r[NOTES] === 'a new row typed by a manager')!
            expect(row.slice(KEY, KEY + 2)).toEqual(['tags-alice/99', 'fp-99'])
            expect(after.rows.filter((r) => r[KEY] === 'tags-alice/99')).toHaveLength(1)
          })
        })

        it('no longer returns a row a manager deleted', async () => {
          await withRows(3)
          await manager().deleteRow(ACTIVITIES, 3)
          const data = tab(await sheet.read([ACTIVITIES]), ACTIVITIES)
          expect(keysOf(data)).toEqual(['tags-alice/1', 'tags-alice/3'])
          expect(data.rows[1]).toEqual(activityRow(3))
        })
      })
    }
  })
}
