/**
 * The Notes cell, both ways. Notes longer than a spreadsheet cell holds. Google refuses a cell of more than 50,000 characters, and the
 * refusal fails the whole batch it is in: thousands of rows written together would fail for one long note.
 * Such notes are shown shortened, with a marker; a cell that still holds exactly that stands for the whole
 * notes, so an import never sends the shortened text back over them.
 */

import { cellText, excerpt, isErrorValue, isFormula } from './cells.ts'
import { normaliseNotes } from './fingerprint.ts'
import type { CellValue } from './sheet.ts'

/** Google's limit on the characters of one cell (Sheets help "Files you can store in Google Drive"). */
export const CELL_CHARS = 50_000

/** What ends a shortened note in its cell. */
export const SHORTENED_MARKER = ' … [shortened by timeline-sheets: the whole note is on the server]'

/** The Notes cell for an activity's notes: the notes, or their beginning and the marker when too long. */
export function notesCellText(notes: string | undefined): string {
  const text = notes ?? ''
  if (text.length <= CELL_CHARS) return text
  let cut = CELL_CHARS - SHORTENED_MARKER.length
  // Never end on half of a surrogate pair.
  if (/[\uD800-\uDBFF]/.test(text[cut - 1]!)) cut--
  return text.slice(0, cut) + SHORTENED_MARKER
}

/** Whether notes are shown shortened in their cell. */
export function notesShortened(notes: string | undefined): boolean {
  return (notes?.length ?? 0) > CELL_CHARS
}

/** What a Notes cell says, and what is wrong with it when anything is. */
export interface NotesRead {
  notes: string | undefined
  problem?: { code: 'formula' | 'error-value' | 'notes-shortened'; message: string }
}

/**
 * Reads a Notes cell of a row whose activity has `notes` (`existing`: a row of an activity the server has).
 * A cell that still shows what the tool wrote reads as the activity's own notes, whole.
 */
export function readNotesCell(value: CellValue | undefined, notes: string | undefined, existing: boolean): NotesRead {
  const shown = existing ? notesCellText(notes) : undefined
  const wrote = existing && value === shown
  let problem: NotesRead['problem']
  if (isFormula(value) && !wrote) problem = { code: 'formula', message: `holds a formula (${excerpt(value)}); Notes must be plain text` }
  else if (isErrorValue(value) && !wrote)
    problem = {
      code: 'error-value',
      message: `holds the spreadsheet error ${cellText(value).trim()}; type the note as plain text, or clear it`,
    }
  const text = cellText(value)
  if (existing && normaliseNotes(text) === normaliseNotes(shown)) return problem ? { notes, problem } : { notes }
  // The cell showed the beginning of notes too long for it: text typed there would replace the whole notes.
  if (existing && notesShortened(notes)) {
    return {
      notes,
      problem: {
        code: 'notes-shortened',
        message: `holds the beginning of notes too long for a cell (${notes!.length.toLocaleString('en')} characters); change them in the time tracker itself; to save this row's other changes, undo the edit to Notes`,
      },
    }
  }
  const read = text === '' ? undefined : text
  return problem ? { notes: read, problem } : { notes: read }
}
