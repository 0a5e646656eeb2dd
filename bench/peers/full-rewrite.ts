/**
 * Peer 1, the full rewrite: the script most teams write first. Every run reads
 * every Tags timeline's activities for the whole window, clears the tab and
 * writes everything again, in `values.batchUpdate` requests each under
 * Google's 10 MB body cap. Always right (the tab is exactly the server's
 * window), and every run costs what the whole window costs.
 *
 * Sheets requests: `spreadsheets.get` (the tab's grid size), an
 * `appendDimension` when the grid is too small, `values.clear`, then one
 * `values.batchUpdate` per ~9.5 MB. Prints one result line (bench/lib/emit.ts).
 */
import { argument, emit } from '../lib/emit.ts'
import { chunksUnder, HEADER, MAX_BODY_BYTES, quoted, readActivities, sheetsApi, toRow, type PeerOptions } from './lib.ts'

const options = argument<PeerOptions>()
const tab = options.tab ?? 'Activities'
const api = sheetsApi(options)

const read = await readActivities(options)
const rows: (string | number)[][] = [[...HEADER], ...read.activities.map(toRow)]

const meta = await api.spreadsheets.get({ spreadsheetId: options.spreadsheetId, fields: 'sheets.properties' })
const sheet = meta.data.sheets?.find((s) => s.properties?.title === tab)?.properties
if (!sheet) throw new Error(`no tab ${tab}`)
const rowCount = sheet.gridProperties?.rowCount ?? 0
if (rowCount < rows.length) {
  await api.spreadsheets.batchUpdate({
    spreadsheetId: options.spreadsheetId,
    requestBody: { requests: [{ appendDimension: { sheetId: sheet.sheetId ?? 0, dimension: 'ROWS', length: rows.length - rowCount } }] },
  })
}
await api.spreadsheets.values.clear({ spreadsheetId: options.spreadsheetId, range: quoted(tab) })
let writes = 0
for (const chunk of chunksUnder(rows, MAX_BODY_BYTES)) {
  await api.spreadsheets.values.batchUpdate({
    spreadsheetId: options.spreadsheetId,
    requestBody: { valueInputOption: 'RAW', data: [{ range: `${quoted(tab)}!A${chunk.first + 1}`, values: chunk.rows }] },
  })
  writes++
}

emit({
  activities: read.activities.length,
  timelines: read.timelines,
  timelineRequests: read.cost.requests,
  rowsWritten: rows.length - 1,
  valueWrites: writes,
})
