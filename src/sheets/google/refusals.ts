/**
 * Google's refusals that the tool acts on and that Google gives no code for. Each comes as a 400
 * `INVALID_ARGUMENT` (the protected range's status is not documented at all) with no `ErrorInfo.reason` in its
 * details, so its message is the only part that tells it from any other bad request. Each is recognised here,
 * by its text, in one named predicate, and nowhere else: test/errors.test.ts refuses message matching in src/
 * outside its allow-list, which names these.
 */
import { HttpError, TimelineSheetsError } from '../../errors.ts'

/**
 * Google Sheets API: a write into a range protected against the caller. Google documents neither a status nor a
 * code for it; people report it by its text, "You are trying to edit a protected cell or object"
 * (decisions/0021-protected-ranges.md), so the text decides, whatever the status it came with.
 */
export function isProtectedRefusal(error: unknown): boolean {
  return error instanceof HttpError && /protected cell or object/i.test(error.message)
}

/**
 * Google Sheets API: a `values.batchGet` naming a tab the spreadsheet does not have fails whole, 400
 * `INVALID_ARGUMENT` "Unable to parse range: …", the same status and code as any other malformed request.
 */
export function isUnparsableRange(error: unknown): boolean {
  return error instanceof HttpError && error.status === 400 && /Unable to parse range/i.test(error.message)
}

/**
 * Google Sheets API: a request naming a tab by a sheet id that no longer names it (the tab was deleted, or made
 * again with another id), or renaming a tab (`updateSheetProperties`) to a title another took meanwhile. 400 `INVALID_ARGUMENT` with
 * "No grid with id", "No sheet with id" or "updateSheetProperties: A sheet with the name", nothing else.
 */
export function isStaleTabId(error: unknown): boolean {
  return (
    error instanceof TimelineSheetsError &&
    /No grid with id|No sheet with id|updateSheetProperties: A sheet with the name/i.test(error.message)
  )
}

/**
 * Google Sheets API: a request body over Google's size limit once unpacked, 400 `INVALID_ARGUMENT` "Request
 * payload size exceeds the limit". `doctor --write-test` reads Google's message (`message`) for it.
 */
export function isPayloadTooLarge(message: string): boolean {
  return /payload size exceeds the limit/i.test(message)
}
