/**
 * `npm run sheets-fake -- --port 8931 [--title T] [--tab Activities]`: starts the
 * Sheets fake on loopback, creates one spreadsheet, and prints how to point the
 * tool at it. Stops on Ctrl-C.
 */
import { parseArgs } from 'node:util'
import { startSheetsFake } from './server.ts'

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    title: { type: 'string', default: 'timeline-sheets (fake)' },
    tab: { type: 'string', multiple: true },
    token: { type: 'string', default: 'static-test-token' },
    'no-quota': { type: 'boolean', default: false },
  },
})

const fake = await startSheetsFake({
  port: Number(values.port),
  staticToken: values.token,
  ...(values['no-quota'] ? { quota: false as const } : {}),
})
const tabs = values.tab && values.tab.length > 0 ? values.tab : ['Sheet1']
const ss = fake.store.createSpreadsheet({ title: values.title, sheets: tabs.map((title, i) => ({ title, sheetId: i })) })

process.stdout.write(
  [
    `Sheets API fake listening`,
    `  rootUrl:        ${fake.rootUrl}`,
    `  token endpoint: ${fake.tokenUrl}`,
    `  consent page:   ${fake.authUrl}`,
    `  static token:   ${fake.staticToken}`,
    `  spreadsheetId:  ${ss.spreadsheetId}`,
    ``,
    `Point the tool at it with the Sheets root URL ${fake.rootUrl} and the bearer token above, e.g.`,
    `  curl -H 'Authorization: Bearer ${fake.staticToken}' '${fake.rootUrl}v4/spreadsheets/${ss.spreadsheetId}'`,
    ``,
  ].join('\n'),
)

const stop = () => {
  void fake.close().then(() => process.exit(0))
}
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
