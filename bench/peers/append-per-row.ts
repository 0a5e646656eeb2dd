/**
 * The footnote's yardstick: the export as the most
 * naive script writes it — read the activities, then one `values.append`
 * (USER_ENTERED, INSERT_ROWS) per row — on a sample of `rows` rows. The
 * orchestrator scales it to 100,000 rows and Google's 60 writes a minute.
 *
 * Prints one result line (bench/lib/emit.ts): its Sheets write time alone.
 */
import { argument, emit, timed } from '../lib/emit.ts'
import { HEADER, quoted, readActivities, sheetsApi, toRow, type PeerOptions } from './lib.ts'

const options = argument<PeerOptions & { rows: number }>()
const tab = options.tab ?? 'Activities'
const api = sheetsApi(options)

const read = await timed(() => readActivities(options))
const rows = read.value.activities.slice(0, options.rows).map(toRow)
await api.spreadsheets.values.update({
  spreadsheetId: options.spreadsheetId,
  range: `${quoted(tab)}!A1`,
  valueInputOption: 'RAW',
  requestBody: { values: [[...HEADER]] },
})
const write = await timed(async () => {
  for (const row of rows) {
    await api.spreadsheets.values.append({
      spreadsheetId: options.spreadsheetId,
      range: `${quoted(tab)}!A1`,
      valueInputOption: 'USER_ENTERED',
      insertDataOption: 'INSERT_ROWS',
      requestBody: { values: [row] },
    })
  }
})

emit({ rows: rows.length, readMs: read.ms, writeMs: write.ms, writeRequests: rows.length })
