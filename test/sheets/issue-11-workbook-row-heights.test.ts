/**
 * Issue 11: wrapped Notes and Statuses do not spill over the rows below. Neither Excel nor LibreOffice
 * fits a row's height when it opens a file, so each row the tool writes carries the height its longest
 * wrapped text needs; a row of one-line texts keeps the default, and a height a person set stays.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { activitiesTab, allowedTagsTab, syncLogTab } from '../../src/core/columns.ts'
import type { CellValue } from '../../src/core/sheet.ts'
import { LINE_HEIGHT, wrappedLines } from '../../src/sheets/workbook/row-height.ts'
import { createWorkbookFixture, editFile, type WorkbookFixture } from './workbook-fixture.ts'
import { zipText } from './xlsx-package.ts'

const fixtures: WorkbookFixture[] = []
afterEach(async () => {
  for (const made of fixtures.splice(0)) await made.cleanup()
})

const NOTES = 7
const STATUS = 9

function row(notes: string, status: string | null = null): CellValue[] {
  return ['ACME\\anna', 46000, 0.375, 0.5, 0.125, 'Client, Project', null, notes, false, status, `key-${notes.length}`, 'base']
}

/** The `<row>` start tag of each row number. */
async function rowTags(file: string): Promise<Map<number, string>> {
  const xml = await zipText(file, 'xl/worksheets/sheet1.xml')
  return new Map([...xml.matchAll(/<row r="(\d+)"([^>]*?)\/?>/g)].map((m) => [Number(m[1]), m[2]!]))
}

function height(tag: string | undefined): number | undefined {
  const m = / ht="([\d.]+)"/.exec(tag ?? '')
  return m === null ? undefined : Number(m[1])
}

describe('issue 11: row heights of wrapped texts', () => {
  it('counts the lines a text wraps to at word boundaries, and its own line breaks', () => {
    expect(wrappedLines('short', 37)).toBe(1)
    expect(wrappedLines('Line one\nLine two\nLine three', 37)).toBe(3)
    // 79 characters in a 37-unit column (about 40 characters a line): two lines, broken at a space.
    expect(wrappedLines('Done (2026-11-23): Saved to the server: Notes: "" → "Checked by the manager".', 37.14)).toBe(2)
    expect(wrappedLines('x'.repeat(100), 10)).toBe(10)
  })

  it('gives each row the tool writes the height of its longest wrapped text, and no height to one-line rows', async () => {
    const made = await createWorkbookFixture()
    fixtures.push(made)
    await made.spreadsheet.ensureLayout([activitiesTab(), allowedTagsTab(), syncLogTab()], { timeZone: 'Europe/Berlin' })
    const long = 'Conflict (2026-11-22): Changed both here and on the server since the last sync; the server has Start 09:30.'
    await made.spreadsheet.write(
      [{ tab: 'Activities', appends: [row('one line'), row('Line one\nLine two\nLine three'), row('short', long)] }],
      await made.spreadsheet.read(['Activities']),
    )
    let tags = await rowTags(made.file)
    expect(height(tags.get(2))).toBeUndefined()
    expect(height(tags.get(3))).toBe(3 * LINE_HEIGHT)
    expect(height(tags.get(4))).toBe(wrappedLines(long, 260 / 7) * LINE_HEIGHT)
    expect(height(tags.get(4))).toBeGreaterThan(LINE_HEIGHT)

    // A later write that shortens the Status brings the row back to the default; a longer Note grows row 2.
    const basis = await made.spreadsheet.read(['Activities'])
    await made.spreadsheet.write(
      [
        {
          tab: 'Activities',
          updates: [
            { row: 4, column: STATUS, values: ['Done (2026-11-23): Saved.'] },
            { row: 2, column: NOTES, values: ['a\nb'] },
          ],
        },
      ],
      basis,
    )
    tags = await rowTags(made.file)
    expect(height(tags.get(4))).toBeUndefined()
    expect(height(tags.get(2))).toBe(2 * LINE_HEIGHT)
    // The row nothing was written to keeps its height.
    expect(height(tags.get(3))).toBe(3 * LINE_HEIGHT)
  })

  it('keeps a height a person set', async () => {
    const made = await createWorkbookFixture()
    fixtures.push(made)
    await made.spreadsheet.ensureLayout([activitiesTab(), allowedTagsTab(), syncLogTab()], { timeZone: 'Europe/Berlin' })
    await made.spreadsheet.write([{ tab: 'Activities', appends: [row('one')] }], await made.spreadsheet.read(['Activities']))
    await editFile(made.file, 'Activities', (sheet) => {
      sheet.getRow(2).height = 60
    })
    const basis = await made.spreadsheet.read(['Activities'])
    await made.spreadsheet.write([{ tab: 'Activities', updates: [{ row: 2, column: NOTES, values: ['a\nb\nc\nd\ne\nf'] }] }], basis)
    const tag = (await rowTags(made.file)).get(2)
    expect(height(tag)).toBe(60)
    expect(tag).toContain('customHeight="1"')
  })
})
