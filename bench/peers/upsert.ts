/**
 * Peer 2, the upsert: n8n's Google Sheets "Append or Update Row" operation
 * as a script. Every run reads every Tags timeline's activities for the whole
 * window and the whole tab (`values.get`, FORMATTED_VALUE), matches rows on
 * the Key column (first match wins, compared as text), sends one value range
 * per changed cell in one `values.batchUpdate`, and appends the new rows with
 * one `appendDimension` and a `values.update` at the row after the last one
 * (one per ~9.5 MB). It never removes a row: an activity deleted on the server
 * stays in the tab. Fast, and wrong by exactly those rows (the orchestrator
 * counts them).
 *
 * Prints one result line (bench/lib/emit.ts).
 */
import type { sheets_v4 } from '@googleapis/sheets'
import { argument, emit } from '../lib/emit.ts'
import {
  chunksUnder,
  columnLetter,
  HEADER,
  KEY_COLUMN,
  MAX_BODY_BYTES,
  quoted,
  readActivities,
  sheetsApi,
  toRow,
  type PeerOptions,
} from './lib.ts'

const options = argument<PeerOptions>()
const tab = options.tab ?? 'Activities'
const api = sheetsApi(options)

const read = await readActivities(options)

const meta = await api.spreadsheets.get({ spreadsheetId: options.spreadsheetId, fields: 'sheets.properties' })
const sheet = meta.data.sheets?.find((s) => s.properties?.title === tab)?.properties
if (!sheet) throw new Error(`no tab ${tab}`)
const got = await api.spreadsheets.values.get({
  spreadsheetId: options.spreadsheetId,
  range: quoted(tab),
  valueRenderOption: 'FORMATTED_VALUE',
})
const grid = (got.data.values ?? []) as string[][]

const rowOfKey = new Map<string, number>()
for (let i = 1; i < grid.length; i++) {
  const key = grid[i]?.[KEY_COLUMN]
  if (key && !rowOfKey.has(key)) rowOfKey.set(key, i)
}

const updates: sheets_v4.Schema$ValueRange[] = []
const appends: (string | number)[][] = grid.length === 0 ? [[...HEADER]] : []
let updatedRows = 0
for (const activity of read.activities) {
  const row = toRow(activity)
  const at = rowOfKey.get(activity.key)
  if (at === undefined) {
    appends.push(row)
    continue
  }
  const cells = grid[at]!
  let changed = false
  row.forEach((value, column) => {
    // The key column itself is never written.
    if (column === KEY_COLUMN || String(value) === (cells[column] ?? '')) return
    updates.push({ range: `${quoted(tab)}!${columnLetter(column)}${at + 1}`, values: [[value]] })
    changed = true
  })
  if (changed) updatedRows++
}

let requests = 0
for (const chunk of chunksUnder(updates, MAX_BODY_BYTES)) {
  await api.spreadsheets.values.batchUpdate({
    spreadsheetId: options.spreadsheetId,
    requestBody: { valueInputOption: 'RAW', data: chunk.rows },
  })
  requests++
}
if (appends.length > 0) {
  const lastRow = grid.length
  // n8n grows the grid by what it adds, whatever room is left below.
  await api.spreadsheets.batchUpdate({
    spreadsheetId: options.spreadsheetId,
    requestBody: { requests: [{ appendDimension: { sheetId: sheet.sheetId ?? 0, dimension: 'ROWS', length: appends.length } }] },
  })
  for (const chunk of chunksUnder(appends, MAX_BODY_BYTES)) {
    await api.spreadsheets.values.update({
      spreadsheetId: options.spreadsheetId,
      range: `${quoted(tab)}!A${lastRow + chunk.first + 1}`,
      valueInputOption: 'RAW',
      requestBody: { values: chunk.rows },
    })
    requests++
  }
}

emit({
  activities: read.activities.length,
  timelines: read.timelines,
  timelineRequests: read.cost.requests,
  sheetRowsRead: Math.max(0, grid.length - 1),
  updatedRows,
  updatedCells: updates.length,
  appended: appends.length,
  valueWrites: requests,
})
