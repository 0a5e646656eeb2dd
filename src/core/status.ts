/**
 * The Status vocabulary (decisions/0004-status-words.md): every Status the tool writes starts with one
 * word a manager can act on, then the local date, then the reason — `Conflict (2026-11-22): Changed both
 * here and on the server…`. The same words head the Sync log's Result column. The words and their
 * colours are data (`STATUS_RULES`): both spreadsheet backends turn them into conditional formats, and
 * the tests check that every Status the tool can write matches exactly one of them.
 */
import { columnLetters } from './columns.ts'

/** The words, most urgent first; none is a prefix of another, so a text matches at most one. */
export const STATUS_WORDS = ['Error', 'Conflict', 'Waiting', 'Deleted', 'Done'] as const

export type StatusWord = (typeof STATUS_WORDS)[number]

/** A Status as the tool decides it: the word that drives the colour, and the reason a manager reads. */
export interface Status {
  word: StatusWord
  reason: string
}

/** One conditional-format rule: rows whose status cell starts with `word` get these colours (hex `RRGGBB`). */
export interface StatusRule {
  word: StatusWord
  fill: string
  font: string
  /** What the word asks of a manager; shown where the rules are explained. */
  meaning: string
}

/** The one layout policy for status colours, read by both backends (in this order: first match wins). */
export const STATUS_RULES: readonly StatusRule[] = [
  { word: 'Error', fill: 'F4C7C3', font: '8A1C12', meaning: 'the row cannot be used as it is, or its write failed: fix the row' },
  { word: 'Conflict', fill: 'FFE0A0', font: '6B4500', meaning: 'changed here and on the server: decide which version stays' },
  {
    word: 'Waiting',
    fill: 'DCE8F8',
    font: '1F3F6B',
    meaning: 'an edit the next import sends, or a row the next run takes up: nothing to do',
  },
  {
    word: 'Deleted',
    fill: 'EDEDED',
    font: '6B6B6B',
    meaning: 'not (or no longer) on the server: delete the row when you no longer need it',
  },
  { word: 'Done', fill: 'E4F2E7', font: '1E5631', meaning: 'the tool changed the server or this row as the reason says: nothing to do' },
]

/** The rule for a word. */
export function statusRule(word: StatusWord): StatusRule {
  return STATUS_RULES.find((r) => r.word === word)!
}

/** The cell text of a Status written on `date` (`YYYY-MM-DD`, local): `Conflict (2026-11-22): reason`. */
export function statusText(status: Status, date: string): string {
  return `${status.word} (${date}): ${status.reason}`
}

/** A Status cell as read: its word (undefined for text an earlier version or a person wrote), date and reason. */
export interface ReadStatus {
  word: StatusWord | undefined
  date: string | undefined
  reason: string
}

const CURRENT = new RegExp(`^(${STATUS_WORDS.join('|')}) \\((\\d{4}-\\d{2}-\\d{2})\\): `)
/** Versions before the words wrote `2026-11-22: reason`. */
const DATED = /^(\d{4}-\d{2}-\d{2}): /

/** Reads a Status cell, in the current form or the dated form earlier versions wrote. */
export function readStatus(text: string): ReadStatus {
  const current = CURRENT.exec(text)
  if (current) return { word: current[1] as StatusWord, date: current[2], reason: text.slice(current[0].length) }
  const dated = DATED.exec(text)
  if (dated) return { word: undefined, date: dated[1], reason: text.slice(dated[0].length) }
  return { word: undefined, date: undefined, reason: text }
}

/**
 * True when a status cell already says `status` (whatever its date): then it is not written again, so an
 * unchanged sheet costs no write. A text in an earlier version's form never does, so it gets its word once.
 */
export function saysStatus(cell: unknown, status: Status): boolean {
  if (typeof cell !== 'string') return false
  const read = readStatus(cell)
  return read.word === status.word && read.reason === status.reason
}

/**
 * The rules whose condition a cell text meets — what the spreadsheet's formula
 * (`statusRuleFormula`) computes: the text starts with the word, letter case aside.
 */
export function rulesMatching(text: string): StatusRule[] {
  return STATUS_RULES.filter((r) => text.slice(0, r.word.length).toLowerCase() === r.word.toLowerCase())
}

/**
 * The conditional-format formula for a rule over a range whose first row is `firstRow` (1-based) and whose
 * status cell is in column `statusColumn` (0-based): `=LEFT($K1,8)="Conflict"`. Google Sheets and Excel
 * read it alike (`=` on text ignores letter case in both). A range that starts at the header row (whose
 * "Status" or "Result" meets no rule) keeps covering every data row when rows are inserted right under
 * the header: a range starting at row 2 would be pushed down by them.
 */
export function statusRuleFormula(word: StatusWord, statusColumn: number, firstRow = 1): string {
  return `=LEFT($${columnLetters(statusColumn)}${firstRow},${word.length})="${word}"`
}

/** How a run ended, as the engine records it. */
export type RunResult = 'success' | 'partial' | 'refused' | 'incomplete'

/**
 * The word of a run for the Sync log's Result column: the most urgent Status it left. A refused run or a
 * row that failed or cannot be read is an Error; another partial run needs a person's decision (Conflict);
 * an incomplete run and edits left for the next import are Waiting.
 */
export function runStatusWord(
  result: RunResult,
  counts: { conflicts: number; invalid: number; waiting: number; failed?: number },
): StatusWord {
  if (result === 'refused') return 'Error'
  if (result === 'partial') return counts.invalid + (counts.failed ?? 0) > 0 ? 'Error' : 'Conflict'
  if (result === 'incomplete' || counts.waiting > 0) return 'Waiting'
  return 'Done'
}
