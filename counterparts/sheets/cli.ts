/**
 * `npm run sheets-fake -- --port 8931 [--title T] [--tab Activities] [--scope S]… [--key-file F]`: starts the
 * Sheets fake on loopback, creates one spreadsheet, and prints how to point the tool at it. Stops on Ctrl-C.
 * It issues what each sign-in needs: a static token with the scopes asked for (`sync --watch` needs
 * drive.metadata.readonly besides spreadsheets), and a service-account key file it accepts for the JWT sign-in.
 */
import path from 'node:path'
import { parseArgs } from 'node:util'
import { startSheetsFake } from './server.ts'
import { writeServiceAccountKeyFile } from './service-account-key.ts'

const usage = `Usage: npm run sheets-fake -- [options]

Starts the Google Sheets API fake on 127.0.0.1 with one spreadsheet, and prints its root URL and a token.

Options:
  --port <n>        port on 127.0.0.1 (default: 0, a free port)
  --title <text>    the spreadsheet's title (default: "timeline-sheets (fake)")
  --tab <title>     a tab to create; repeat for more (default: Sheet1)
  --token <text>    the static bearer token it accepts (default: static-test-token)
  --scope <scope>   a scope the static token carries; repeat for more (default: spreadsheets). A name under
                    https://www.googleapis.com/auth/ (spreadsheets, drive.metadata.readonly) or a full URL;
                    sync --watch needs --scope spreadsheets --scope drive.metadata.readonly
  --key-file <path> write a service-account key file there (token_uri: this fake) and accept its JWT sign-in,
                    with whatever scopes the signer asks for; a file there is replaced only if this fake wrote it
  --no-quota        no per-minute quotas
  -h, --help        show this help
`

const options = {
  port: { type: 'string', default: '0' },
  title: { type: 'string', default: 'timeline-sheets (fake)' },
  tab: { type: 'string', multiple: true },
  token: { type: 'string', default: 'static-test-token' },
  scope: { type: 'string', multiple: true },
  'key-file': { type: 'string' },
  'no-quota': { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const

const SCOPE_ROOT = 'https://www.googleapis.com/auth/'

function refuse(message: string): never {
  process.stderr.write(`sheets-fake: ${message}\n\n${usage}`)
  process.exit(2)
}

let values: ReturnType<typeof parseArgs<{ options: typeof options }>>['values']
try {
  values = parseArgs({ options }).values
} catch (error) {
  refuse(error instanceof Error ? error.message : String(error))
}
if (values.help) {
  process.stdout.write(usage)
  process.exit(0)
}
if (!/^\d+$/.test(values.port) || Number(values.port) > 65535) {
  refuse(`--port must be a number from 0 to 65535, got ${JSON.stringify(values.port)}`)
}
const scopes = (values.scope && values.scope.length > 0 ? values.scope : ['spreadsheets']).map((scope) => {
  if (/^https:\/\/\S+$/.test(scope)) return scope
  if (/^[a-z][a-z0-9.]*$/.test(scope)) return `${SCOPE_ROOT}${scope}`
  return refuse(`--scope takes a name such as drive.metadata.readonly or a full https:// URL, got ${JSON.stringify(scope)}`)
})

const fake = await startSheetsFake({
  port: Number(values.port),
  staticToken: values.token,
  staticTokenScopes: scopes,
  ...(values['no-quota'] ? { quota: false as const } : {}),
})
let keyLines: string[] = []
if (values['key-file'] !== undefined) {
  const file = path.resolve(values['key-file'])
  try {
    const key = await writeServiceAccountKeyFile(file, fake.tokenUrl)
    fake.store.auth.registerServiceAccount({ clientEmail: key.clientEmail, publicKey: key.publicKey })
    keyLines = [`  key file:       ${file}`, `  its account:    ${key.clientEmail}`]
  } catch (error) {
    await fake.close()
    refuse(error instanceof Error ? error.message : String(error))
  }
}
const tabs = values.tab && values.tab.length > 0 ? values.tab : ['Sheet1']
const ss = fake.store.createSpreadsheet({ title: values.title, sheets: tabs.map((title, i) => ({ title, sheetId: i })) })
const short = (scope: string) => (scope.startsWith(SCOPE_ROOT) ? scope.slice(SCOPE_ROOT.length) : scope)
const watchable = scopes.some((scope) => short(scope).startsWith('drive'))

process.stdout.write(
  [
    `Sheets API fake listening`,
    `  rootUrl:        ${fake.rootUrl}`,
    `  token endpoint: ${fake.tokenUrl}`,
    `  consent page:   ${fake.authUrl}`,
    `  static token:   ${fake.staticToken}`,
    `  its scopes:     ${scopes.map(short).join(', ')}`,
    ...keyLines,
    `  spreadsheetId:  ${ss.spreadsheetId}`,
    ``,
    `Point the tool at it with "google": { "rootUrl": "${fake.rootUrl}", "auth": … }:`,
    `  { "mode": "static-token" } and GOOGLE_ACCESS_TOKEN=${fake.staticToken}`,
    ...(keyLines.length > 0 ? [`  { "mode": "service-account", "keyFile": "${path.resolve(values['key-file']!)}" }`] : []),
    `and "watch": true for sync --watch: ${
      watchable
        ? 'the static token carries a Drive scope'
        : 'the static token has no Drive scope, so start with --scope spreadsheets --scope drive.metadata.readonly'
    }${keyLines.length > 0 ? '; the key file signs in with the scopes the tool asks for' : ''}.`,
    `or try it: curl -H 'Authorization: Bearer ${fake.staticToken}' '${fake.rootUrl}v4/spreadsheets/${ss.spreadsheetId}'`,
    ``,
  ].join('\n'),
)

const stop = () => {
  void fake.close().then(() => process.exit(0))
}
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
