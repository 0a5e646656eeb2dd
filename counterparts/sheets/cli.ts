/**
 * `npm run sheets-fake -- --port 8931 [--title T] [--tab Activities]`: starts the
 * Sheets fake on loopback, creates one spreadsheet, and prints how to point the
 * tool at it. Stops on Ctrl-C.
 */
import { parseArgs } from 'node:util'
import { startSheetsFake } from './server.ts'

const usage = `Usage: npm run sheets-fake -- [options]

Starts the Google Sheets API fake on 127.0.0.1 with one spreadsheet, and prints its root URL and a token.

Options:
  --port <n>       port on 127.0.0.1 (default: 0, a free port)
  --title <text>   the spreadsheet's title (default: "timeline-sheets (fake)")
  --tab <title>    a tab to create; repeat for more (default: Sheet1)
  --token <text>   the static bearer token it accepts (default: static-test-token)
  --no-quota       no per-minute quotas
  -h, --help       show this help
`

const options = {
  port: { type: 'string', default: '0' },
  title: { type: 'string', default: 'timeline-sheets (fake)' },
  tab: { type: 'string', multiple: true },
  token: { type: 'string', default: 'static-test-token' },
  'no-quota': { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const

let values: ReturnType<typeof parseArgs<{ options: typeof options }>>['values']
try {
  values = parseArgs({ options }).values
} catch (error) {
  process.stderr.write(`sheets-fake: ${error instanceof Error ? error.message : String(error)}\n\n${usage}`)
  process.exit(2)
}
if (values.help) {
  process.stdout.write(usage)
  process.exit(0)
}
if (!/^\d+$/.test(values.port) || Number(values.port) > 65535) {
  process.stderr.write(`sheets-fake: --port must be a number from 0 to 65535, got ${JSON.stringify(values.port)}\n\n${usage}`)
  process.exit(2)
}

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
