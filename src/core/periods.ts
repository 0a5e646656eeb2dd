/**
 * The periods a manager approves: an ISO week (Monday to Sunday, named `2026-W45`) or a calendar month
 * (`2026-11`), as local days of the sheet. A period is `[from, to)`: `to` is the first day after it.
 */
import { addDays, localDateToSerial, serialToLocalDate, type LocalDate } from './serial.ts'

export type PeriodKind = 'week' | 'month'

export interface Period {
  /** `2026-W45` or `2026-11`. */
  id: string
  from: LocalDate
  /** The first day after the period. */
  to: LocalDate
}

/** The period a local day lies in (frozen: one object serves every row of that day). */
export function periodOf(date: LocalDate, kind: PeriodKind): Period {
  // An import places every Activities row in its period: a sheet's few hundred days, each worked out once.
  const memo = kind === 'month' ? monthOf : weekOf
  const known = memo.get(date)
  if (known) return known
  const period = Object.freeze(computePeriodOf(date, kind))
  if (memo.size >= PERIODS_KEPT) memo.clear()
  memo.set(date, period)
  return period
}

/** Days `periodOf` remembers for each kind: decades of days, far more than any window names. */
const PERIODS_KEPT = 20_000
const weekOf = new Map<LocalDate, Period>()
const monthOf = new Map<LocalDate, Period>()

function computePeriodOf(date: LocalDate, kind: PeriodKind): Period {
  if (kind === 'month') {
    const from = `${date.slice(0, 7)}-01`
    const [year, month] = [Number(date.slice(0, 4)), Number(date.slice(5, 7))]
    const to = month === 12 ? `${year + 1}-01-01` : `${year}-${String(month + 1).padStart(2, '0')}-01`
    return { id: date.slice(0, 7), from, to }
  }
  const serial = localDateToSerial(date)
  // Serial 2 (1900-01-01) was a Monday.
  const monday = serialToLocalDate(serial - mod(serial - 2, 7))
  // The ISO year is the year of the week's Thursday.
  const thursday = addDays(monday, 3)
  const isoYear = Number(thursday.slice(0, 4))
  const firstThursday = firstThursdayOf(isoYear)
  const week = Math.round((localDateToSerial(thursday) - localDateToSerial(firstThursday)) / 7) + 1
  return { id: `${isoYear}-W${String(week).padStart(2, '0')}`, from: monday, to: addDays(monday, 7) }
}

/** The periods that hold a day of `[from, from + days)`, in order. */
export function periodsOf(from: LocalDate, days: number, kind: PeriodKind): Period[] {
  const out: Period[] = []
  let day = from
  const end = addDays(from, days)
  while (day < end) {
    const period = periodOf(day, kind)
    out.push(period)
    day = period.to
  }
  return out
}

/** Whether a local day lies in the period. */
export function inPeriod(date: LocalDate, period: Pick<Period, 'from' | 'to'>): boolean {
  return date >= period.from && date < period.to
}

function firstThursdayOf(year: number): LocalDate {
  const jan1 = localDateToSerial(`${year}-01-01`)
  const weekday = mod(jan1 - 2, 7) // 0 = Monday
  return serialToLocalDate(jan1 + mod(3 - weekday, 7))
}

function mod(a: number, n: number): number {
  return ((a % n) + n) % n
}
