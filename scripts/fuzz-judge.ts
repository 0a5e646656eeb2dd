/**
 * The fuzzer's oracle: what a run through the real CLI did with the garbled rows, judged from outside. It reads
 * the dry run's JSON plan, the sheet before and after `import --yes`, and every change the reference server
 * recorded, and counts exits that call something a bug, invalid rows left without a Status, server writes traced
 * to invalid rows, and rows whose content was replaced. A row is invalid when the dry run says so or when the
 * garbling made it so by construction (`fuzz-rows.ts`), so a verdict the tool misses still counts.
 */
import type { ReferenceServer } from '../counterparts/timeline/server.ts'
import { notesCellText } from '../src/core/notes-cell.ts'
import { readStatus } from '../src/core/status.ts'
import type { Figures } from './fuzz-report.ts'
import { FUZZ, type FuzzRow, type Scalar } from './fuzz-rows.ts'

const COMPARED = ['User', 'Date', 'Start', 'End', 'Tags', 'Labels', 'Notes', 'Delete', 'Key'] as const

/** A finished CLI process: its exit code and everything it printed. */
export interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** How many changes each Tags timeline of the reference server holds, to tell the run's own writes after it. */
export function changeSeqs(server: ReferenceServer): Map<string, number> {
  return new Map(
    server.credentials.users.flatMap((u) =>
      u.tagsTimelineKey ? [[u.tagsTimelineKey, server.store.changes(u.tagsTimelineKey).length] as const] : [],
    ),
  )
}

export function measure(input: {
  server: ReferenceServer
  seqBefore: Map<string, number>
  fuzzRows: FuzzRow[]
  before: Record<string, Scalar>[]
  after: Record<string, Scalar>[]
  runs: { dry: Run; applied: Run }
  /** The day of the run's `--now`: the day a fresh Status names. */
  today: string
}): Figures {
  const { server, seqBefore, fuzzRows, before, after, runs, today } = input
  const details: string[] = []
  const byId = new Map(fuzzRows.map((r) => [r.id, r]))
  const idAt = (row: Record<string, Scalar>) => String(row[FUZZ] ?? '')
  const text = (v: Scalar | undefined) => (v === null || v === undefined ? '' : String(v))

  // 1. Exits whose output says "bug" or shows a stack trace.
  let bugExits = 0
  for (const [name, run] of Object.entries(runs)) {
    const output = `${run.stdout}\n${run.stderr}`
    // The line that gives it away, so a report shows the cause rather than the first line of output.
    // The tool's own words for a bug ("This is a bug…", "report this as a bug"), not any "bug" — a
    // field-level plan quotes Notes, and a team's Notes say "Fixed login bug".
    const bug = /^.*\b(this is a bug|as a bug)\b.*$/im.exec(output) ?? /^\s+at .+:\d+:\d+\)?$/m.exec(output)
    if (bug) bugExits++
    details.push(`import ${name === 'dry' ? '--dry-run' : '--yes'}: exit ${run.code}${bug ? ` — ${excerptOf(bug[0])}` : ''}`)
  }

  // Invalid rows: what the dry run says, and what no row may hold by construction.
  const invalid = new Map<string, string>()
  let planned: { invalid?: { rowNumber?: number; reason: string }[]; writes?: unknown[] } = {}
  try {
    const parsed = JSON.parse(runs.dry.stdout)
    planned = parsed?.runs?.[0]?.plan ?? {}
  } catch {
    details.push('the dry run printed no JSON plan')
  }
  for (const i of planned.invalid ?? []) {
    const row = i.rowNumber === undefined ? undefined : before[i.rowNumber - 2]
    if (row) invalid.set(idAt(row), i.reason)
  }
  const toolMissed: string[] = []
  for (const row of fuzzRows) {
    if (row.invalidBy.length === 0) continue
    if (!invalid.has(row.id)) toolMissed.push(`${row.id} (${row.invalidBy.join('; ')})`)
    invalid.set(row.id, invalid.get(row.id) ?? row.invalidBy.join('; '))
  }
  details.push(
    `rows: ${before.length}; invalid: ${invalid.size} (the dry run: ${planned.invalid?.length ?? 0}); planned writes: ${planned.writes?.length ?? 0}`,
  )
  if (toolMissed.length)
    details.push(
      `rows invalid by construction that the dry run let through: ${toolMissed.length}, e.g. ${toolMissed.slice(0, 5).join(', ')}`,
    )

  // 2. Invalid rows without a fresh Status.
  const afterById = new Map(after.map((r) => [idAt(r), r]))
  const noStatus: string[] = []
  for (const id of invalid.keys()) {
    const row = afterById.get(id)
    if (!row || readStatus(text(row['Status'])).date !== today)
      noStatus.push(`${id}${row ? ` (Key ${excerptOf(JSON.stringify(row['Key']))}: ${excerptOf(invalid.get(id) ?? '')})` : ' (row gone)'}`)
  }
  const sharedKey = noStatus.filter((r) => /this activity is in rows/.test(r))
  if (sharedKey.length)
    details.push(
      `invalid rows without a Status that hold a Key other rows hold too (the write-back puts one Status per Key, on the last such row): ${sharedKey.length} of ${noStatus.length}`,
    )
  if (noStatus.length) details.push(`invalid rows without a Status: ${noStatus.slice(0, 8).join('; ')}${noStatus.length > 8 ? '; …' : ''}`)

  // 3. Server writes, traced to the rows that hold their Key.
  const keyHolders = new Map<string, string[]>()
  for (const row of before) {
    const key = text(row['Key']).trim()
    if (key) keyHolders.set(key, [...(keyHolders.get(key) ?? []), idAt(row)])
  }
  for (const row of after) {
    const key = text(row['Key']).trim()
    if (key && !keyHolders.has(key)) keyHolders.set(key, [idAt(row)])
  }
  let writes = 0
  let writesFromInvalid = 0
  let deletionsFromInvalid = 0
  const fromInvalid: string[] = []
  const unattributed: string[] = []
  for (const [timeline, seqs] of seqBefore) {
    for (const change of server.store.changes(timeline).slice(seqs)) {
      writes++
      const key = `${timeline}/${change.entityId}`
      const holders = keyHolders.get(key) ?? []
      if (holders.length === 0) unattributed.push(`${change.kind} ${key}`)
      const bad = holders.filter((id) => invalid.has(id))
      if (bad.length > 0 || holders.length > 1) {
        writesFromInvalid++
        if (change.kind === 'deleted') deletionsFromInvalid++
        fromInvalid.push(
          `${change.kind} ${key} from ${holders.join('+')}${bad.length ? ` (${excerptOf(invalid.get(bad[0]!) ?? '')})` : ''}`,
        )
      }
    }
  }
  details.push(`server writes: ${writes}`)
  if (fromInvalid.length)
    details.push(`writes from invalid rows (${deletionsFromInvalid} of them deletions): ${fromInvalid.slice(0, 8).join(', ')}`)
  if (unattributed.length)
    details.push(`writes no row holds the Key of: ${unattributed.length}, e.g. ${unattributed.slice(0, 5).join(', ')}`)

  // 4. Rows whose content was replaced.
  const replacedRows: string[] = []
  const byFile: string[] = []
  for (const row of before) {
    const id = idAt(row)
    const now = afterById.get(id)
    const planned = byId.get(id)
    if (!now) {
      if (!planned?.ticked && !invalid.has(id) && text(row['Delete']).toLowerCase() !== 'true')
        replacedRows.push(`${id} (removed, Delete not ticked)`)
      else if (invalid.has(id)) replacedRows.push(`${id} (invalid, removed)`)
      continue
    }
    if (invalid.has(id)) {
      const changed = COMPARED.filter((c) => text(row[c]) !== text(now[c]))
      if (changed.length && changed.every((c) => fileRoundTrip(row[c], now[c]))) byFile.push(id)
      if (changed.length) replacedRows.push(`${id} (invalid, ${changed.map((c) => `${c} ${difference(row[c], now[c])}`).join(', ')})`)
      continue
    }
    const keyBefore = text(row['Key']).trim()
    const keyNow = text(now['Key']).trim()
    if (keyBefore && keyBefore !== keyNow) replacedRows.push(`${id} (Key ${keyBefore} became ${keyNow})`)
    // Notes longer than a cell holds are shown shortened once saved (the server keeps them whole): what the tool means.
    else if (notesOf(row['Notes']) !== notesOf(now['Notes']) && notesOf(now['Notes']) !== notesCellText(notesOf(row['Notes']))) {
      if (fileRoundTrip(row['Notes'], now['Notes'])) byFile.push(id)
      replacedRows.push(`${id} (Notes ${difference(row['Notes'], now['Notes'])})`)
    } else if (tagsOf(row) !== tagsOf(now)) {
      const kept = (c: 'Tags' | 'Labels') =>
        text(row[c]) === text(now[c]) || fileRoundTrip(text(row[c]), text(now[c])) || fileRoundTrip(`:${text(row[c])}`, text(now[c]))
      if (kept('Tags') && kept('Labels')) byFile.push(id)
      replacedRows.push(`${id} (Tags and Labels ${difference(tagsOf(row), tagsOf(now))})`)
    }
  }
  const otherwise = replacedRows.filter((r) => !byFile.includes(r.split(' ')[0]!))
  const shown = [...otherwise, ...replacedRows.filter((r) => !otherwise.includes(r))]
  if (replacedRows.length) details.push(`rows replaced: ${shown.slice(0, 8).join('; ')}${replacedRows.length > 8 ? '; …' : ''}`)
  if (byFile.length)
    details.push(
      `of which changed only as an .xlsx file can hold them (control characters dropped, characters turned into U+FFFD) when the workbook was saved: ${byFile.length}`,
    )

  return { bugExits, invalidWithoutStatus: noStatus.length, writesFromInvalid, replaced: replacedRows.length, details }
}

/** Where two cell values part: `"x\u0000y" → "xy"`, or for long text the first differing characters. */
function difference(a: Scalar | undefined, b: Scalar | undefined): string {
  if (typeof a !== 'string' || typeof b !== 'string' || a.length + b.length < 200)
    return `${excerptOf(JSON.stringify(a ?? null))} → ${excerptOf(JSON.stringify(b ?? null))}`
  let i = 0
  while (i < a.length && a[i] === b[i]) i++
  return `${a.length} → ${b.length} characters, from ${i}: ${JSON.stringify(a.slice(i, i + 6))} → ${JSON.stringify(b.slice(i, i + 6))}`
}

function notesOf(value: Scalar | undefined): string {
  const text = value === null || value === undefined ? '' : typeof value === 'boolean' ? (value ? 'TRUE' : 'FALSE') : String(value)
  return text.replace(/\r\n?/g, '\n')
}

/**
 * True when `after` is `before` as an .xlsx file can keep it: control characters dropped, or characters
 * turned into U+FFFD (exceljs does both when it saves), nothing else changed.
 */
function fileRoundTrip(before: Scalar | undefined, after: Scalar | undefined): boolean {
  if (typeof before !== 'string' || typeof after !== 'string') return false
  if (before.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '') === after) return true
  if (before.length !== after.length) return false
  for (let i = 0; i < before.length; i++) if (before[i] !== after[i] && after[i] !== '\uFFFD') return false
  return true
}

/** Tags and labels as a set, compared the way the server folds them. */
function tagsOf(row: Record<string, Scalar>): string {
  const split = (v: Scalar | undefined) =>
    v === null || v === undefined
      ? []
      : String(v)
          .split(',')
          .map((t) => t.trim().toLowerCase())
          .filter(Boolean)
  const labels = split(row['Labels']).map((l) => (l.startsWith(':') ? l : `:${l}`))
  return [...new Set([...split(row['Tags']), ...labels])].sort().join(', ')
}

function excerptOf(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > 120 ? `${line.slice(0, 120)}…` : line
}
