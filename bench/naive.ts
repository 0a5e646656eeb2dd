/**
 * Issue 4's yardstick: the same export done the way a typical script does
 * it. Read each user's activities, then one `values.append` per row
 * (USER_ENTERED, INSERT_ROWS) through the same googleapis client and the same
 * Sheets fake. Run on a sample; the orchestrator scales it to 100,000 rows.
 */
import { sheets } from '@googleapis/sheets'
import { signInWithStaticToken } from '../src/sheets/google/auth.ts'
import { passwordSignIn } from '../src/timeline/auth/password.ts'
import { createTimelineClient } from '../src/timeline/client.ts'
import { vendorIdentifiers } from '../src/timeline/vendor.ts'
import { argument, emit, peakRssMiB, timed } from './lib/emit.ts'

export interface NaiveOptions {
  rows: number
  timelineUrl: string
  username: string
  password: string
  rootUrl: string
  token: string
  spreadsheetId: string
  from: string
  to: string
}

const options = argument<NaiveOptions>()
const client = createTimelineClient({
  signIn: passwordSignIn({ baseUrl: options.timelineUrl, username: options.username, password: options.password, vendor: vendorIdentifiers('manictime') }),
  pace: { concurrency: 4, intervalCap: 1_000_000, interval: 60_000 },
})
const api = sheets({ version: 'v4', auth: signInWithStaticToken(options.token).client, rootUrl: options.rootUrl })

const read = await timed(async () => {
  const rows: (string | number)[][] = []
  for (const timeline of await client.tagsTimelines()) {
    const { activities } = await client.readActivities(timeline, { from: options.from, to: options.to })
    for (const a of activities) {
      const start = new Date(a.start)
      rows.push([timeline.ownerUsername, a.start.slice(0, 10), a.start.slice(11, 16), new Date(start.getTime() + a.duration * 1000).toISOString().slice(11, 16), a.duration / 86_400, a.tags.join(', '), a.notes ?? '', `${timeline.timelineKey}/${a.entityId}`])
      if (rows.length >= options.rows) return rows
    }
  }
  return rows
})

await api.spreadsheets.values.update({
  spreadsheetId: options.spreadsheetId,
  range: 'Sheet1!A1',
  valueInputOption: 'RAW',
  requestBody: { values: [['User', 'Date', 'Start', 'End', 'Duration', 'Tags', 'Notes', 'Key']] },
})
const write = await timed(async () => {
  for (const row of read.value) {
    await api.spreadsheets.values.append({
      spreadsheetId: options.spreadsheetId,
      range: 'Sheet1!A1',
      valueInputOption: 'USER_ENTERED',
      insertDataOption: 'INSERT_ROWS',
      requestBody: { values: [row] },
    })
  }
})

emit({
  rows: read.value.length,
  readMs: read.ms,
  writeMs: write.ms,
  writeRequests: read.value.length,
  peakRssMiB: peakRssMiB(),
})
