/** `import --dry-run --plan-tab`: the plan written into a Plan tab, for review in the sheet. */
import type { ImportPlanView } from '../core/import-report.ts'
import { isEmptyWrite, rewriteTab } from '../core/sheet-writes.ts'
import type { CellValue, Spreadsheet } from '../sheets/port.ts'

export async function writePlanTab(spreadsheet: Spreadsheet, view: ImportPlanView): Promise<void> {
  const title = 'Plan'
  await spreadsheet.ensureLayout(
    [
      {
        title,
        readOnly: true,
        columns: [
          { name: 'Action', kind: 'text' },
          { name: 'User', kind: 'text' },
          { name: 'Row', kind: 'number' },
          { name: 'What', kind: 'text', width: 480 },
        ],
      },
    ],
    { timeZone: 'UTC' },
  )
  const snapshot = await spreadsheet.read([title])
  const tab = snapshot.tabs[title]!
  const rows: CellValue[][] = [
    ...view.writes.map((w) => [w.kind, w.user, w.rowNumber ?? null, w.what]),
    ...view.conflicts.map((c) => ['conflict', '', c.rowNumber ?? null, c.reason]),
    ...view.invalid.map((c) => ['invalid', '', c.rowNumber ?? null, c.reason]),
    ...(view.tagsMessage ? [['allowed tags', '', null, view.tagsMessage]] : []),
  ]
  const write = rewriteTab(tab, rows, 4)
  if (!isEmptyWrite(write)) await spreadsheet.write([write], snapshot)
}
