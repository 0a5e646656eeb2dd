/**
 * The tabs the tool writes and how it finds its columns again. Columns are
 * always found by header text, never by position: managers may reorder
 * columns and add their own, which are kept as they are.
 */
import { checkOption } from './options.ts'
import type { CellValue, ColumnSpec, TabSpec } from './sheet.ts'

/** Default tab titles. */
export const TAB = {
  activities: 'Activities',
  allowedTags: 'Allowed tags',
  syncLog: 'Sync log',
} as const

/** Header names of the Activities tab. */
export const ACTIVITY_COLUMN = {
  user: 'User',
  date: 'Date',
  start: 'Start',
  end: 'End',
  duration: 'Duration',
  tags: 'Tags',
  labels: 'Labels',
  notes: 'Notes',
  delete: 'Delete',
  status: 'Status',
  key: 'Key',
  base: 'Base',
} as const

export type ActivityColumn = (typeof ACTIVITY_COLUMN)[keyof typeof ACTIVITY_COLUMN]

/** Header names of the Allowed tags tab. */
export const ALLOWED_TAGS_COLUMN = { appliesTo: 'Applies to', tags: 'Tags', status: 'Status' } as const

/** Header names of the Sync log tab. */
export const SYNC_LOG_COLUMN = {
  when: 'When',
  run: 'Run',
  command: 'Command',
  result: 'Result',
  created: 'Created',
  updated: 'Updated',
  deleted: 'Deleted',
  conflicts: 'Conflicts',
  invalid: 'Invalid',
  message: 'Message',
} as const

/** Header names of a read-only tab for another timeline. */
export const TIMELINE_COLUMN = {
  user: 'User',
  date: 'Date',
  start: 'Start',
  end: 'End',
  duration: 'Duration',
  name: 'Name',
} as const

/** User, Date, Start, End, Duration: where an entry sits in time, alike on every tab that shows entries. */
function whenColumns(): ColumnSpec[] {
  const c = ACTIVITY_COLUMN
  return [
    { name: c.user, kind: 'text', width: 140 },
    { name: c.date, kind: 'date', width: 95 },
    { name: c.start, kind: 'time', width: 70 },
    { name: c.end, kind: 'time', width: 70 },
    { name: c.duration, kind: 'duration', width: 75 },
  ]
}

/** Layout of an Activities tab (default title `Activities`; a per-user split passes its own). */
export function activitiesTab(title: string = TAB.activities): TabSpec {
  const c = ACTIVITY_COLUMN
  const columns: ColumnSpec[] = [
    ...whenColumns(),
    { name: c.tags, kind: 'text', width: 260, dropdown: { tab: TAB.allowedTags, column: ALLOWED_TAGS_COLUMN.tags } },
    { name: c.labels, kind: 'text', width: 120 },
    { name: c.notes, kind: 'text', width: 260, wrap: true },
    { name: c.delete, kind: 'checkbox', width: 60 },
    { name: c.status, kind: 'text', width: 260, protected: true, wrap: true },
    { name: c.key, kind: 'text', hidden: true, protected: true },
    { name: c.base, kind: 'text', hidden: true, protected: true },
  ]
  return { title, columns, statusColumn: c.status, filter: true }
}

/** How `Applies to` is written (what `checkAllowedTags` and the Allowed tags reader understand). */
export const APPLIES_TO_NOTE =
  'Whom the row is for: everyone, a person as [DOMAIN\\user] (their login in square brackets), or a team as {Team} ' +
  '(its name in braces). Several separated by commas: [ACME\\anna], {Support}.'

/** How a `Tags` combination is written. */
export const ALLOWED_TAGS_NOTE =
  'One allowed combination of tags per row, most general first, separated by commas: Client, Project, Task. ' +
  'It feeds the Tags dropdown on Activities; a trailing ,. (Client, Project,.) means no tag may be added after it.'

/** What the Allowed tags tab's Status says, and which lines a team's sheet may change. */
export const ALLOWED_TAGS_STATUS_NOTE =
  'Written by the tool: why a change of this row was not sent. A team sheet shows only the lines that apply to its ' +
  'people; lines shared with people outside it, and the lines for everyone unless the operator allows it, are ' +
  'shown but cannot be changed here.'

/** Layout of the Allowed tags tab. */
export function allowedTagsTab(): TabSpec {
  return {
    title: TAB.allowedTags,
    columns: [
      { name: ALLOWED_TAGS_COLUMN.appliesTo, kind: 'text', width: 200, note: APPLIES_TO_NOTE },
      { name: ALLOWED_TAGS_COLUMN.tags, kind: 'text', width: 360, note: ALLOWED_TAGS_NOTE },
      { name: ALLOWED_TAGS_COLUMN.status, kind: 'text', width: 420, protected: true, wrap: true, note: ALLOWED_TAGS_STATUS_NOTE },
    ],
    statusColumn: ALLOWED_TAGS_COLUMN.status,
  }
}

/** Layout of the Sync log tab (tool-written). */
export function syncLogTab(): TabSpec {
  const c = SYNC_LOG_COLUMN
  return {
    title: TAB.syncLog,
    readOnly: true,
    statusColumn: c.result,
    columns: [
      { name: c.when, kind: 'datetime', width: 140, showZone: true },
      // A run id (`20261123T211452Z-m7im`) is 21 characters: narrower, it runs into Command.
      { name: c.run, kind: 'text', width: 170 },
      { name: c.command, kind: 'text', width: 80 },
      { name: c.result, kind: 'text', width: 80 },
      { name: c.created, kind: 'number', width: 70 },
      { name: c.updated, kind: 'number', width: 70 },
      { name: c.deleted, kind: 'number', width: 70 },
      { name: c.conflicts, kind: 'number', width: 75 },
      { name: c.invalid, kind: 'number', width: 70 },
      { name: c.message, kind: 'text', width: 400, wrap: true },
    ],
  }
}

/** Layout of a read-only tab showing another timeline (computer usage, applications…). */
export function timelineTab(title: string): TabSpec {
  const c = TIMELINE_COLUMN
  return {
    title,
    readOnly: true,
    columns: [...whenColumns(), { name: c.name, kind: 'text', width: 360 }],
  }
}

function headerText(cell: CellValue | undefined): string {
  return typeof cell === 'string' ? cell.trim() : cell === null || cell === undefined ? '' : String(cell)
}

// One collator for every comparison: localeCompare with options builds a new one per call, which a
// read of a wide sheet pays thousands of times. Made on first need: its ICU data costs a few milliseconds to
// load, and header names are nearly always printable ASCII, which needs none.
let nameCollator: Intl.Collator | undefined
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/

function sameName(a: string, b: string): boolean {
  if (a === b) return true
  // Printable ASCII has no character the collator ignores, and at this strength only case is overlooked.
  if (PRINTABLE_ASCII.test(a) && PRINTABLE_ASCII.test(b)) return a.toLowerCase() === b.toLowerCase()
  nameCollator ??= new Intl.Collator('en', { sensitivity: 'accent' })
  return nameCollator.compare(a, b) === 0
}

/** 0-based index of the first header cell named `name` (trimmed, case-insensitive), or -1. */
export function columnIndex(header: readonly CellValue[], name: string): number {
  return header.findIndex((cell) => sameName(headerText(cell), name))
}

/** Where each spec column sits in the header as read. */
export interface HeaderLayout {
  /** Column name (as in the spec) → 0-based index in the sheet. */
  index: Record<string, number>
  /** Number of header cells, extra columns included. */
  width: number
  /** 0-based indexes of header cells the spec does not know (kept, never written). */
  extra: number[]
}

export type HeaderProblem =
  | { kind: 'missing'; column: string; message: string }
  | { kind: 'renamed'; column: string; found: string; position: number; message: string }
  | { kind: 'duplicated'; column: string; positions: number[]; message: string }
  | { kind: 'no-header'; message: string }

export type HeaderCheck = { ok: true; layout: HeaderLayout } | { ok: false; problems: HeaderProblem[] }

/**
 * Checks a header row against a tab spec. Every spec column must appear once.
 * A missing column whose spec position holds an unknown header is reported as
 * renamed (the likely cause). Extra columns are allowed and listed.
 */
export function validateHeader(header: readonly CellValue[], spec: TabSpec): HeaderCheck {
  const names = header.map(headerText)
  if (names.every((n) => n === '')) {
    return { ok: false, problems: [{ kind: 'no-header', message: `The ${spec.title} tab has no header row` }] }
  }
  const problems: HeaderProblem[] = []
  const index: Record<string, number> = {}
  const known = new Set<number>()
  for (const column of spec.columns) {
    const positions = names.flatMap((n, i) => (sameName(n, column.name) ? [i] : []))
    positions.forEach((p) => known.add(p))
    if (positions.length > 1) {
      problems.push({
        kind: 'duplicated',
        column: column.name,
        positions,
        message: `Column "${column.name}" appears ${positions.length} times (columns ${positions.map(columnLetters).join(', ')}); keep one`,
      })
    }
    if (positions[0] !== undefined) index[column.name] = positions[0]
  }
  spec.columns.forEach((column, specPosition) => {
    if (index[column.name] !== undefined) return
    const found = names[specPosition] ?? ''
    if (found !== '' && !known.has(specPosition)) {
      problems.push({
        kind: 'renamed',
        column: column.name,
        found,
        position: specPosition,
        message: `Column "${column.name}" is missing; column ${columnLetters(specPosition)} is headed "${found}" — rename it back to "${column.name}"`,
      })
    } else {
      problems.push({
        kind: 'missing',
        column: column.name,
        message: `Column "${column.name}" is missing from the ${spec.title} tab header; add it back (the tool will restore the layout on the next setup)`,
      })
    }
  })
  if (problems.length > 0) return { ok: false, problems }
  const extra = names.flatMap((_, i) => (!known.has(i) ? [i] : []))
  return { ok: true, layout: { index, width: names.length, extra } }
}

/** Spreadsheet column letters of a 0-based index (0 → A, 25 → Z, 26 → AA); the one definition every backend uses. */
export function columnLetters(index: number): string {
  checkOption('index', index, 'an integer >= 0')
  let n = index + 1
  let out = ''
  while (n > 0) {
    const r = (n - 1) % 26
    out = String.fromCharCode(65 + r) + out
    n = Math.floor((n - 1) / 26)
  }
  return out
}
