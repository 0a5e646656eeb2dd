/**
 * Dates in formulas: NOW() as a wall-clock serial in the spreadsheet's time
 * zone, and the number format Sheets gives a formula's result when its cell
 * has none (a date from DATE or TODAY, a date-time from NOW, a date plus days
 * stays a date). Neither needs the values a read computes, so both stand
 * apart from the evaluator.
 */
import { FormulaParseError, type Node } from './formula-parse.ts'
import { sheetNamed, treeOf } from './formula-trees.ts'
import type { SheetData, SpreadsheetData } from './sheet-data.ts'
import { serialFromEpochMs } from './serial.ts'
import type { ExtendedValue, NumberFormat } from './values.ts'

const DATE_FORMAT: NumberFormat = { type: 'DATE', pattern: 'M/d/yyyy' }
const DATE_TIME_FORMAT: NumberFormat = { type: 'DATE_TIME', pattern: 'M/d/yyyy H:mm:ss' }

/** Wall-clock serial of `epochMs` in a CLDR zone (`Etc/GMT`, `Europe/Paris`) or a custom `GMT+01:00`. */
export function serialInZone(epochMs: number, timeZone: string): number {
  const custom = /^(?:GMT|UTC)([+-])(\d{1,2})(?::?(\d{2}))?$/.exec(timeZone)
  if (custom) {
    const offset = (Number(custom[2]) * 60 + Number(custom[3] ?? 0)) * (custom[1] === '-' ? -1 : 1)
    return serialFromEpochMs(epochMs + offset * 60_000)
  }
  try {
    const parts = Object.fromEntries(
      new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      })
        .formatToParts(new Date(epochMs))
        .map((p) => [p.type, p.value]),
    )
    const wall = Date.UTC(
      Number(parts.year),
      Number(parts.month) - 1,
      Number(parts.day),
      Number(parts.hour),
      Number(parts.minute),
      Number(parts.second),
      epochMs % 1000,
    )
    return serialFromEpochMs(wall)
  } catch {
    return serialFromEpochMs(epochMs)
  }
}

/** The number format Sheets gives a formula's result when its cell has none: dates from DATE/TODAY, date-times from NOW, a date plus days stays a date. */
export function inferredFormat(ss: SpreadsheetData, stored: ExtendedValue, sheet: SheetData, depth = 0): NumberFormat | undefined {
  const tree = treeOf(stored)
  return tree instanceof FormulaParseError ? undefined : formatOf(ss, tree, sheet, depth)
}

function formatOf(ss: SpreadsheetData, node: Node, sheet: SheetData, depth: number): NumberFormat | undefined {
  if (depth > 20) return undefined
  const dateLike = (f: NumberFormat | undefined) => f !== undefined && (f.type === 'DATE' || f.type === 'DATE_TIME')
  switch (node.k) {
    case 'call':
      if (['TODAY', 'DATE', 'DATEVALUE'].includes(node.name)) return DATE_FORMAT
      if (node.name === 'NOW') return DATE_TIME_FORMAT
      if ((node.name === 'IF' || node.name === 'IFERROR') && node.args[node.name === 'IF' ? 1 : 0])
        return formatOf(ss, node.args[node.name === 'IF' ? 1 : 0]!, sheet, depth + 1)
      if (['MIN', 'MAX'].includes(node.name) && node.args[0]) return formatOf(ss, node.args[0], sheet, depth + 1)
      return undefined
    case 'ref': {
      const r = node.ref
      if (r.startRow === undefined || r.startColumn === undefined || r.endRow !== r.startRow + 1 || r.endColumn !== r.startColumn + 1)
        return undefined
      const target = r.sheet === undefined ? sheet : sheetNamed(ss, r.sheet)
      const cell = target?.rows[r.startRow]?.cells[r.startColumn]
      if (!target || !cell) return undefined
      if (cell.userEnteredFormat?.numberFormat) return cell.userEnteredFormat.numberFormat
      return cell.userEnteredValue?.formulaValue !== undefined ? inferredFormat(ss, cell.userEnteredValue, target, depth + 1) : undefined
    }
    case 'bin': {
      if (node.op !== '+' && node.op !== '-') return undefined
      const a = formatOf(ss, node.a, sheet, depth + 1)
      const b = formatOf(ss, node.b, sheet, depth + 1)
      // Date minus date is a number of days; date plus or minus days stays a date.
      if (dateLike(a) && dateLike(b)) return undefined
      return dateLike(a) ? a : node.op === '+' && dateLike(b) ? b : undefined
    }
    default:
      return undefined
  }
}
