/**
 * Write 100,000 Activities rows through one backend of the
 * spreadsheet port and read them back with a fresh backend instance (so the
 * workbook really loads the file again). Google: the real googleapis client
 * over HTTP to the Sheets fake on loopback, static token. Workbook: a temp
 * .xlsx. Prints requests (the port's own `requestCounts()`), wall time per
 * step and the process's peak RSS.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { activitiesTab, allowedTagsTab } from '../src/core/columns.ts'
import { signInWithStaticToken } from '../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../src/sheets/google/backend.ts'
import type { CellValue, RequestCounts, Spreadsheet } from '../src/sheets/port.ts'
import { createWorkbookSpreadsheet } from '../src/sheets/workbook/backend.ts'
import { argument, emit, peakRssMiB, timed } from './lib/emit.ts'

export type BackendsOptions =
  { kind: 'google'; rows: number; rootUrl: string; token: string; spreadsheetId: string } | { kind: 'workbook'; rows: number }

const options = argument<BackendsOptions>()
let folder: string | undefined

const open = (): Spreadsheet => {
  if (options.kind === 'google') {
    return createGoogleSpreadsheet({
      spreadsheetId: options.spreadsheetId,
      auth: signInWithStaticToken(options.token),
      rootUrl: options.rootUrl,
    })
  }
  return createWorkbookSpreadsheet({ path: path.join(folder!, 'bench.xlsx') })
}
if (options.kind === 'workbook') folder = await mkdtemp(path.join(tmpdir(), 'ts-bench-workbook-'))

const TAGS = ['Acme Corp, Website, Build', 'Globex, Migration, Analysis', 'Internal, Admin, Email', 'Initech, Support, Tickets']
const NOTES = ['Call with the client about scope', 'Fixed login bug\nDeployed to staging', '=IMPORTDATA(x)', '0042', '']
/** Rows shaped like the export writes them: serial dates and times, text, a checkbox, Key and Base. */
function activityRow(i: number): CellValue[] {
  const day = 46_027 + Math.floor(i / 1100)
  const start = (8 * 60 + (i % 40) * 12) / 1440
  const duration = (15 * (1 + (i % 8))) / 1440
  return [
    `user${i % 171}@example.com`,
    day,
    start,
    start + duration,
    duration,
    TAGS[i % TAGS.length]!,
    i % 3 === 0 ? ':billable' : null,
    NOTES[i % NOTES.length] || null,
    false,
    null,
    `tl${i % 171}/${1000 + i}`,
    `fp${(i * 2_654_435_761) % 4_294_967_296}`,
  ]
}

const spec = activitiesTab('Activities')
const diff = (a: RequestCounts, b: RequestCounts): RequestCounts => ({ reads: a.reads - b.reads, writes: a.writes - b.writes })

try {
  const writer = open()
  const rows = Array.from({ length: options.rows }, (_, i) => activityRow(i))
  const layout = await timed(() => writer.ensureLayout([spec, allowedTagsTab()], { timeZone: 'UTC' }))
  const afterLayout = writer.requestCounts()
  const basis = await writer.read(['Activities'])
  const afterBasis = writer.requestCounts()
  const write = await timed(() => writer.write([{ tab: 'Activities', appends: rows }], basis))
  const afterWrite = writer.requestCounts()

  const reader = open()
  const reread = await timed(() => reader.read(['Activities']))
  const back = reread.value.tabs['Activities']!
  if (back.rows.length !== options.rows) throw new Error(`read back ${back.rows.length} rows, wrote ${options.rows}`)
  const sample = back.rows[options.rows - 1]!
  if (sample[10] !== `tl${(options.rows - 1) % 171}/${1000 + options.rows - 1}`)
    throw new Error(`last row came back as ${JSON.stringify(sample)}`)

  emit({
    backend: options.kind,
    rows: options.rows,
    layout: { ms: layout.ms, requests: afterLayout },
    basisRead: { requests: diff(afterBasis, afterLayout) },
    write: { ms: write.ms, requests: diff(afterWrite, afterBasis), appended: write.value.appended['Activities'] },
    reread: { ms: reread.ms, requests: reader.requestCounts() },
    ...(folder ? { fileBytes: (await stat(path.join(folder, 'bench.xlsx'))).size } : {}),
    peakRssMiB: peakRssMiB(),
  })
} finally {
  if (folder) await rm(folder, { recursive: true, force: true })
}
