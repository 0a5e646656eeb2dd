/**
 * Who may change what a protected range covers, as Google's reference (`ProtectedRange`) and help page say:
 * a range with `warningOnly` "every user can edit" (after a warning the API does not show); any other range its
 * `editors`; "Owners of the spreadsheet can always edit protected ranges" (Google's help page on protected
 * ranges). What a caller may not edit is refused whole, with the text others saw from Google
 * ("You are trying to edit a protected cell or object", decisions/0021-protected-ranges.md).
 */
import { invalidArgument, type SheetsApiError } from './google-errors.ts'
import type { ProtectedRange, SheetData, SpreadsheetData } from './sheet-data.ts'
import { boundsOfGridRange } from './sheet-lookup.ts'
import type { EditGuard } from './tx.ts'

/**
 * Google's refusal as third parties quote it; the status (400 INVALID_ARGUMENT) is the fake's choice, recorded in
 * decisions/0021-protected-ranges.md.
 */
export const PROTECTED_EDIT_MESSAGE =
  'You are trying to edit a protected cell or object. Please contact the spreadsheet owner to remove protection if you need to edit.'

/** The refusal of an edit into a protected range the caller is no editor of. */
export function protectedEdit(): SheetsApiError {
  return invalidArgument(PROTECTED_EDIT_MESSAGE)
}

/**
 * Who calls: a token's subject, or undefined for a change the store makes as the owner (a manager acting
 * without an identity).
 */
export type Caller = string | undefined

/** The users a protected range lists as editors. */
export function editorUsers(p: ProtectedRange): string[] {
  const users = (p.editors as { users?: unknown } | undefined)?.users
  return Array.isArray(users) ? users.filter((u): u is string => typeof u === 'string') : []
}

/** Whether `caller` may edit what `p` covers. Groups and domains are not modelled: only listed users count. */
export function canEditProtected(ss: SpreadsheetData, p: ProtectedRange, caller: Caller): boolean {
  if (p.warningOnly) return true
  if (caller === undefined || caller === ss.ownerEmail) return true
  return editorUsers(p).includes(caller)
}

interface Blocking {
  /** The sheet's list the entry was made from: a new list (any change of the sheet's protections) makes a new entry. */
  from: readonly ProtectedRange[]
  areas: { startRow: number; endRow: number; startColumn: number; endColumn: number; whole: boolean }[]
}

/**
 * The guard of a transaction run for `caller`: undefined when the caller may edit everything (the owner).
 * The protected ranges it may not edit are worked out once per sheet and again only when they change.
 */
export function editGuardFor(ss: SpreadsheetData, caller: Caller): EditGuard | undefined {
  if (caller === undefined || caller === ss.ownerEmail) return undefined
  const cache = new WeakMap<SheetData, Blocking>()
  const blocking = (sheet: SheetData): Blocking['areas'] => {
    const known = cache.get(sheet)
    if (known && known.from === sheet.protectedRanges) return known.areas
    const areas = sheet.protectedRanges
      .filter((p) => !canEditProtected(ss, p, caller))
      .map((p) => {
        const b = boundsOfGridRange(p.range)
        return {
          startRow: b.startRow ?? 0,
          endRow: b.endRow ?? Infinity,
          startColumn: b.startColumn ?? 0,
          endColumn: b.endColumn ?? Infinity,
          whole: Object.keys(b).length === 0,
        }
      })
    cache.set(sheet, { from: sheet.protectedRanges, areas })
    return areas
  }
  return {
    cells(sheet, startRow, endRow, startColumn, endColumn) {
      for (const a of blocking(sheet)) {
        if (startRow < a.endRow && a.startRow < endRow && startColumn < a.endColumn && a.startColumn < endColumn) throw protectedEdit()
      }
    },
    // Rows inserted inside a protected range (or anywhere on a protected sheet) would be cells it covers [I].
    insert(sheet, dimension, start) {
      for (const a of blocking(sheet)) {
        const [from, to] = dimension === 'ROWS' ? [a.startRow, a.endRow] : [a.startColumn, a.endColumn]
        if (a.whole || (from < start && start < to)) throw protectedEdit()
      }
    },
    remove(sheet, dimension, start, end) {
      for (const a of blocking(sheet)) {
        const [from, to] = dimension === 'ROWS' ? [a.startRow, a.endRow] : [a.startColumn, a.endColumn]
        if (start < to && from < end) throw protectedEdit()
      }
    },
  }
}
