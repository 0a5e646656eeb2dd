/**
 * The status colours and the Delete column in the workbook, read back from the file's XML. The
 * product's own tabs are laid out, rows carrying every status word (and every way to tick Delete) are
 * written, and the rules of each sheet are evaluated on each row as Excel does: for a property, the
 * matching rule of the highest priority wins. Every Status row and every Sync log result meets exactly
 * the rule of its word, with that word's colours; a Delete left FALSE is written in its row's fill
 * colour (so it does not show) and a tick stands out.
 */
import { approvalsTab } from '../../src/core/approvals-tab.ts'
import { afterEach, describe, expect, it } from 'vitest'
import { activitiesTab, allowedTagsTab, columnIndex, syncLogTab, ACTIVITY_COLUMN, SYNC_LOG_COLUMN } from '../../src/core/columns.ts'
import { STATUS_RULES, statusText, type StatusWord } from '../../src/core/status.ts'
import { syncLogRow } from '../../src/core/sync-log.ts'
import type { CellValue } from '../../src/core/sheet.ts'
import { TICK_FORMAT } from '../../src/sheets/workbook/conditional-formats.ts'
import { createWorkbookFixture, type WorkbookFixture } from './workbook-fixture.ts'
import { zipText } from './xlsx-package.ts'

const fixtures: WorkbookFixture[] = []
afterEach(async () => {
  for (const made of fixtures.splice(0)) await made.cleanup()
})

interface Dxf {
  font: string | undefined
  bold: boolean
  fill: string | undefined
}
interface Rule {
  formula: string
  priority: number
  dxf: Dxf
}
interface Formatting {
  sqref: string
  rules: Rule[]
}

function decode(text: string): string {
  return text.replaceAll('&quot;', '"').replaceAll('&apos;', "'").replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&')
}

function dxfsOf(styles: string): Dxf[] {
  const list = /<dxfs\b[^>]*>([\s\S]*?)<\/dxfs>/.exec(styles)?.[1] ?? ''
  return [...list.matchAll(/<dxf>([\s\S]*?)<\/dxf>/g)].map(([, inner]) => ({
    font: /<font>[\s\S]*?<color rgb="FF([0-9A-F]{6})"/.exec(inner!)?.[1],
    bold: /<font><b\/>/.test(inner!),
    fill: /<bgColor rgb="FF([0-9A-F]{6})"/.exec(inner!)?.[1],
  }))
}

function formattingsOf(sheet: string, dxfs: Dxf[]): Formatting[] {
  return [...sheet.matchAll(/<conditionalFormatting sqref="([^"]*)">([\s\S]*?)<\/conditionalFormatting>/g)].map(([, sqref, inner]) => ({
    sqref: sqref!,
    rules: [...inner!.matchAll(/<cfRule type="expression" dxfId="(\d+)" priority="(\d+)"><formula>([\s\S]*?)<\/formula><\/cfRule>/g)].map(
      ([, dxf, priority, formula]) => ({ formula: decode(formula!), priority: Number(priority), dxf: dxfs[Number(dxf)]! }),
    ),
  }))
}

function columnOf(letters: string): number {
  return [...letters].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0) - 1
}

/** What Excel computes for one of the rule formulas on a row (references are relative to row 1, the range's top). */
function meets(formula: string, row: readonly CellValue[]): boolean {
  const cell = (letters: string) => row[columnOf(letters)] ?? null
  const text = (value: CellValue) => (value === null ? '' : typeof value === 'boolean' ? (value ? 'TRUE' : 'FALSE') : String(value))
  let m = /^LEFT\(\$([A-Z]+)1,(\d+)\)="([^"]*)"$/.exec(formula)
  if (m) return text(cell(m[1]!)).slice(0, Number(m[2])).toLowerCase() === m[3]!.toLowerCase()
  m = /^\$([A-Z]+)1=FALSE$/.exec(formula)
  // An empty cell equals FALSE in Excel; text never does.
  if (m) return cell(m[1]!) === null || cell(m[1]!) === false
  m = /^AND\((.*?),(LEFT\(.*)\)$/.exec(formula)
  if (m) return meets(m[1]!, row) && meets(m[2]!, row)
  m = /^OR\((.*)\)$/.exec(formula)
  if (m) {
    return [...m[1]!.matchAll(/LOWER\(TRIM\(\$([A-Z]+)1\)\)="([^"]*)"/g)].some(
      ([, letters, wanted]) => text(cell(letters!)).trim().toLowerCase() === wanted,
    )
  }
  throw new Error(`a rule formula of a shape this test does not know: ${formula}`)
}

/** The rules of the formattings covering `column` that a row meets, highest priority first. */
function met(formattings: Formatting[], column: number, row: readonly CellValue[]): Rule[] {
  return formattings
    .filter((formatting) => {
      const [from, to] = formatting.sqref.split(':').map((ref) => columnOf(/^[A-Z]+/.exec(ref)![0]))
      return from! <= column && column <= to!
    })
    .flatMap((formatting) => formatting.rules)
    .filter((rule) => meets(rule.formula, row))
    .sort((a, b) => a.priority - b.priority)
}

describe('status colours and the Delete column in the workbook', () => {
  it('lays out one rule per word on Activities and the Sync log, and every written status meets exactly its own', async () => {
    const made = await createWorkbookFixture()
    fixtures.push(made)
    const sheet = made.spreadsheet
    const tabs = [activitiesTab(), allowedTagsTab(), syncLogTab()]
    await sheet.ensureLayout(tabs, { timeZone: 'Europe/Berlin' })

    const activities = tabs[0]!
    const width = activities.columns.length
    const statusAt = activities.columns.findIndex((c) => c.name === ACTIVITY_COLUMN.status)
    const deleteAt = activities.columns.findIndex((c) => c.name === ACTIVITY_COLUMN.delete)
    const rows = STATUS_RULES.map((rule, i) => {
      const cells: CellValue[] = Array.from({ length: width }, () => null)
      cells[0] = 'ACME\\anna'
      cells[deleteAt] = false
      cells[statusAt] = statusText({ word: rule.word, reason: `Reason ${i}.` }, '2026-11-22')
      return cells
    })
    const counts = { created: 1, updated: 0, deleted: 0, conflicts: 1, invalid: 0, waiting: 0 }
    const logRows = (['success', 'partial', 'refused', 'incomplete'] as const).map((result) =>
      syncLogRow({
        when: new Date('2026-11-22T10:00:00Z'),
        timeZone: 'Europe/Berlin',
        runId: 'r1',
        command: 'import',
        result,
        counts,
        message: '',
      }),
    )
    const before = await sheet.read(['Activities', 'Sync log'])
    await sheet.write(
      [
        { tab: 'Activities', appends: rows },
        { tab: 'Sync log', appends: logRows },
      ],
      before,
    )

    const dxfs = dxfsOf(await zipText(made.file, 'xl/styles.xml'))
    const after = await sheet.read(['Activities', 'Sync log'])
    for (const [title, part, statusName] of [
      ['Activities', 'xl/worksheets/sheet1.xml', ACTIVITY_COLUMN.status],
      ['Sync log', 'xl/worksheets/sheet3.xml', SYNC_LOG_COLUMN.result],
    ] as const) {
      const xml = await zipText(made.file, part)
      expect(xml, title).not.toContain('SEARCH')
      const formattings = formattingsOf(xml, dxfs)
      const tab = after.tabs[title]!
      const statusColumn = columnIndex(tab.header, statusName)
      // The row rules: one per word, over the whole row from the header down.
      const rowRules = formattings.filter((formatting) => formatting.sqref.startsWith('A1:'))
      expect(rowRules, title).toHaveLength(1)
      expect(rowRules[0]!.rules).toHaveLength(STATUS_RULES.length)
      expect(tab.rows.length).toBeGreaterThan(0)
      for (const row of tab.rows) {
        const word = String(row[statusColumn]).split(/[ (]/)[0] as StatusWord
        const rule = STATUS_RULES.find((r) => r.word === word)!
        const matching = rowRules[0]!.rules.filter((r) => meets(r.formula, row))
        expect(matching, `${title}: ${String(row[statusColumn])}`).toHaveLength(1)
        expect(matching[0]!.dxf).toEqual({ fill: rule.fill, font: rule.font, bold: false })
      }
      expect(rowRules[0]!.rules.filter((r) => meets(r.formula, tab.header))).toEqual([])
    }

    // The Delete cell of each row: FALSE in its row's fill colour, so only the fill shows.
    const xml = await zipText(made.file, 'xl/worksheets/sheet1.xml')
    const formattings = formattingsOf(xml, dxfs)
    for (const row of after.tabs['Activities']!.rows) {
      const word = String(row[statusAt]).split(' ')[0] as StatusWord
      const first = met(formattings, deleteAt, row).find((rule) => rule.dxf.font !== undefined)!
      const fill = STATUS_RULES.find((r) => r.word === word)!.fill
      expect(first.dxf, word).toEqual({ font: fill, fill, bold: false })
    }
  })

  it('shows a tick, whatever a manager types for one, in bold red, and hides FALSE in a row without a status', async () => {
    const made = await createWorkbookFixture()
    fixtures.push(made)
    const tabs = [activitiesTab(), allowedTagsTab(), syncLogTab()]
    await made.spreadsheet.ensureLayout(tabs, { timeZone: 'Europe/Berlin' })
    const width = tabs[0]!.columns.length
    const deleteAt = tabs[0]!.columns.findIndex((c) => c.name === ACTIVITY_COLUMN.delete)
    const ticks: CellValue[] = [true, 'x', 'X', ' ✓ ', '✔', 'yes', 1]
    const unticked: CellValue[] = [false, null, 'no', 0]
    const rows = [...ticks, ...unticked].map((tick) => {
      const cells: CellValue[] = Array.from({ length: width }, () => null)
      cells[0] = 'ACME\\anna'
      cells[deleteAt] = tick
      return cells
    })
    await made.spreadsheet.write([{ tab: 'Activities', appends: rows }], await made.spreadsheet.read(['Activities']))
    const formattings = formattingsOf(
      await zipText(made.file, 'xl/worksheets/sheet1.xml'),
      dxfsOf(await zipText(made.file, 'xl/styles.xml')),
    )
    const first = (row: readonly CellValue[]) => met(formattings, deleteAt, row)[0]
    rows.slice(0, ticks.length).forEach((row, i) => expect(first(row)?.dxf, String(ticks[i])).toEqual(TICK_FORMAT))
    expect(first(rows[ticks.length]!)?.dxf).toEqual({ font: 'FFFFFF', bold: false, fill: undefined })
    for (const row of rows.slice(ticks.length)) expect(first(row)?.dxf).not.toEqual(TICK_FORMAT)
    // The column's number format shows a tick as ✓ and FALSE as nothing where it applies (LibreOffice).
    expect(await zipText(made.file, 'xl/styles.xml')).toContain('formatCode="&quot;✓&quot;;&quot;✓&quot;;&quot;&quot;"')
  })

  it('colours a tick red on the Delete column only: an Approved tick on the Approvals tab is no warning', async () => {
    const made = await createWorkbookFixture()
    fixtures.push(made)
    const approvals = approvalsTab('Approvals')
    await made.spreadsheet.ensureLayout([activitiesTab(), allowedTagsTab(), approvals], { timeZone: 'Europe/Berlin' })
    const approvedAt = approvals.columns.findIndex((c) => c.kind === 'checkbox')
    const row: CellValue[] = approvals.columns.map(() => null)
    row[approvedAt] = true
    const formattings = formattingsOf(
      await zipText(made.file, 'xl/worksheets/sheet3.xml'),
      dxfsOf(await zipText(made.file, 'xl/styles.xml')),
    )
    expect(met(formattings, approvedAt, row).map((rule) => rule.dxf)).not.toContainEqual(TICK_FORMAT)
  })
})
