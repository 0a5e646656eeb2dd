/**
 * How a scenario shows a cell, in row selectors and in the golden files: dates `2026-11-03`, times `09:00`,
 * durations `1:30`, a number in a text column `#42`, line breaks `\n`; and the order of Keys in sheet.tsv.
 */
import type { CellValue } from '../../src/sheets/port.ts'

/** `{alice}/7` before `{alice}/12`; rows without a Key last. */
export function compareKeys(a: string, b: string): number {
  if (a === b) return 0
  if (!a) return 1
  if (!b) return -1
  const [ta, ia] = a.split('/')
  const [tb, ib] = b.split('/')
  if (ta !== tb) return ta! < tb! ? -1 : 1
  return Number(ia) - Number(ib) || (a < b ? -1 : 1)
}

const SERIAL_OF_UNIX_EPOCH = 25_569

/** A cell as the golden files and row selectors show it: dates `2026-11-03`, times `09:00`, durations `1:30`. */
export function show(column: string, value: CellValue): string {
  if (value === null) return ''
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE'
  // `Conflict (2026-11-22): …`, and the `2026-11-22: …` of earlier versions.
  if (typeof value === 'string')
    return escape(column === 'Status' ? value.replace(/^(\w+ \()?\d{4}-\d{2}-\d{2}(\))?: /, '$1{stamp}$2: ') : value)
  if (column === 'Date' && Number.isInteger(value)) return new Date((value - SERIAL_OF_UNIX_EPOCH) * 86_400_000).toISOString().slice(0, 10)
  if (column === 'Start' || column === 'End' || column === 'Duration') {
    const total = Math.round(value * 86_400)
    const days = Math.floor(total / 86_400)
    const rest = total - days * 86_400
    const hours = Math.floor(rest / 3600)
    const minutes = Math.floor((rest % 3600) / 60)
    const seconds = rest % 60
    const hh = column === 'Duration' ? String(days * 24 + hours) : String(hours).padStart(2, '0')
    const clock = `${hh}:${String(minutes).padStart(2, '0')}${seconds ? `:${String(seconds).padStart(2, '0')}` : ''}`
    return column !== 'Duration' && days > 0 ? `+${days}d ${clock}` : clock
  }
  return `#${value}`
}

export function escape(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\r/g, '\\r').replace(/\n/g, '\\n').replace(/\t/g, '\\t')
}

/** The Approvals tab's numbers shown as its columns mean them; other tabs' numbers as they are. */
const APPROVALS_SHOWN: Record<string, string> = { From: 'Date', To: 'Date', Hours: 'Duration', 'Hours at approval': 'Duration' }

/** A number in a tab other than Activities: the Approvals tab's dates, hours and `Approved at` (`2026-11-12 12:00`), the Approved tab's as Activities'. */
export function showIn(tab: string, column: string, value: number): string {
  if (tab === 'Approved') return show(column, value)
  if (tab !== 'Approvals') return String(value)
  if (column === 'Approved at') {
    const wall = new Date(Math.round((value - SERIAL_OF_UNIX_EPOCH) * 86_400) * 1000).toISOString()
    return `${wall.slice(0, 10)} ${wall.slice(11, 16)}`
  }
  const as = APPROVALS_SHOWN[column]
  return as ? show(as, value) : String(value)
}
