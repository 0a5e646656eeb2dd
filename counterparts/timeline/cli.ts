/**
 * `npm run reference-server -- [options]`: starts the reference Timeline
 * server with seeded data and prints how to talk to it.
 */
import { Command, InvalidArgumentError } from 'commander'
import { startCloudReferenceServer, type CloudReferenceServer } from './cloud-server.ts'
import { createNtlmAuthenticator, type NtlmScheme } from './ntlm.ts'
import type { SeededUser } from './seed.ts'
import { startReferenceServer, type ReferenceServer } from './server.ts'

function integer(name: string, min: number) {
  return (value: string): number => {
    const parsed = Number(value)
    if (!Number.isInteger(parsed) || parsed < min) throw new InvalidArgumentError(`${name} must be an integer >= ${min}.`)
    return parsed
  }
}

const program = new Command('reference-server')
  .description('Reference Timeline server (in memory, seeded, loopback only)')
  .option('--port <n>', 'port on 127.0.0.1', integer('port', 0), 8080)
  .option('--users <n>', 'team members to create', integer('users', 0), 5)
  .option('--days <n>', 'days of data per user', integer('days', 0), 14)
  .option('--start-date <YYYY-MM-DD>', 'first day of data', '2026-03-23')
  .option('--seed <n>', 'seed of the data generator', integer('seed', 0), 42)
  .option('--vendor <token>', 'identifier vendor: manictime or service', 'manictime')
  .option('--server-time-zone <zone>', 'zone for range bounds without an offset', 'UTC')
  .option('--no-report-deletions', 'list no deletions on incremental reads (deletedActivityIds and the rest)')
  .option('--tag-source <source>', 'service or other (other refuses tag list POSTs)', 'service')
  .option('--max-range-days <n>', 'refuse activities reads over a longer range (with 400 unless told)', integer('max-range-days', 1))
  .option('--range-refusal-status <status>', 'with --max-range-days: 400, 413, 500 or 504', integer('range-refusal-status', 400), 400)
  .option('--directory-users', 'usernames as EXAMPLE\\user instead of e-mail', false)
  .option('--latency <ms>', 'delay every answer', integer('latency', 0), 0)
  .option('--rate-limit-share <0..1>', 'answer this share of requests with 429', Number.parseFloat)
  .option('--base-path <path>', 'serve the API under this path (with --cloud: the account path, default /acct-1/)', '/')
  .option('--cloud', 'cloud mode: an OpenID Provider plus the cloud API (/v1/profile) with this server behind it', false)
  .option('--issuer-port <n>', 'with --cloud: port of the OpenID Provider (0 picks a free port)', integer('issuer-port', 0), 0)
  .option('--access-token-ttl <s>', 'with --cloud: access token lifetime in seconds', integer('access-token-ttl', 1), 3600)
  .option('--ntlm', 'Windows mode: NTLMv2 sign-in with directory users (EXAMPLE\\user) and their passwords', false)
  .option('--ntlm-schemes <list>', 'with --ntlm: schemes the 401 offers, comma-separated: NTLM, Negotiate or Negotiate,NTLM', 'NTLM')

program.parse()
const opts = program.opts<{
  port: number
  users: number
  days: number
  startDate: string
  seed: number
  vendor: string
  serverTimeZone: string
  reportDeletions: boolean
  tagSource: string
  maxRangeDays?: number
  rangeRefusalStatus: number
  directoryUsers: boolean
  latency: number
  rateLimitShare?: number
  basePath: string
  cloud: boolean
  issuerPort: number
  accessTokenTtl: number
  ntlm: boolean
  ntlmSchemes: string
}>()

if (opts.tagSource !== 'service' && opts.tagSource !== 'other') {
  program.error(`--tag-source must be "service" or "other", got ${JSON.stringify(opts.tagSource)}`)
}
if (![400, 413, 500, 504].includes(opts.rangeRefusalStatus)) {
  program.error(`--range-refusal-status must be 400, 413, 500 or 504, got ${opts.rangeRefusalStatus}`)
}
if (opts.cloud && opts.ntlm)
  program.error('--cloud and --ntlm exclude each other: the cloud signs in with OpenID Connect, Windows servers with NTLM.')
const ntlmSchemes = opts.ntlmSchemes.split(',').map((scheme): NtlmScheme => {
  const trimmed = scheme.trim()
  if (trimmed === 'NTLM' || trimmed === 'Negotiate') return trimmed
  return program.error(`--ntlm-schemes must list NTLM and/or Negotiate, got ${JSON.stringify(opts.ntlmSchemes)}`)
})
if (!opts.basePath.startsWith('/') || !opts.basePath.endsWith('/'))
  program.error(`--base-path must start and end with "/", got ${JSON.stringify(opts.basePath)}`)

const data = {
  users: opts.users,
  days: opts.days,
  startDate: opts.startDate,
  seed: opts.seed,
  directoryUsers: opts.directoryUsers || opts.ntlm,
}
const faults = {
  latencyMs: opts.latency,
  ...(opts.rateLimitShare === undefined ? {} : { rateLimit: { share: opts.rateLimitShare } }),
}
const storeOptions = {
  vendor: opts.vendor,
  serverTimeZone: opts.serverTimeZone,
  reportDeletions: opts.reportDeletions,
  tagSource: opts.tagSource as 'service' | 'other',
  ...(opts.maxRangeDays === undefined
    ? {}
    : { rangeLimit: { maxDays: opts.maxRangeDays, status: opts.rangeRefusalStatus as 400 | 413 | 500 | 504 } }),
}

let server: ReferenceServer | CloudReferenceServer
try {
  server = opts.cloud
    ? await startCloudReferenceServer({
        ...storeOptions,
        port: opts.port,
        issuerPort: opts.issuerPort,
        accessTokenTtl: opts.accessTokenTtl,
        accountPath: program.getOptionValueSource('basePath') === 'default' ? '/acct-1/' : opts.basePath,
        data,
        faults,
      })
    : await startReferenceServer({
        ...storeOptions,
        port: opts.port,
        basePath: opts.basePath,
        data,
        faults,
        ...(opts.ntlm ? { authenticator: () => createNtlmAuthenticator({ schemes: ntlmSchemes }) } : {}),
      })
} catch (error) {
  console.error(`reference-server: could not start: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
}

const { store } = server
const seed = server.seed
const accounts = [seed?.admin, seed?.transfer, seed?.reader, ...(seed?.users ?? [])].filter((a): a is SeededUser => a !== undefined)
const someTimeline = seed?.users[0]?.tagsTimelineKey
const mediaType = store.vendor.mediaType
const userLines = [
  'Users (username / password / role):',
  ...accounts.map((a) => `  ${a.username}  /  ${a.password}  /  ${a.role}${a.timeZone ? `  (${a.timeZone})` : ''}`),
]

/** A config a person can paste: the sign-in, and a local workbook whose window reaches back to the seeded data. */
function configSnippet(auth: Record<string, unknown>): string {
  const days = Math.min(3660, Math.max(35, Math.ceil((Date.now() - Date.parse(`${opts.startDate}T00:00:00Z`)) / 86_400_000) + 1))
  const config = {
    ...(store.vendor.token === 'manictime' ? {} : { vendor: store.vendor.token }),
    timeline: { auth },
    targets: [{ name: 'team', spreadsheet: { kind: 'workbook', path: 'team.xlsx' }, timeZone: 'Europe/Berlin', window: { days } }],
  }
  return JSON.stringify(config, null, 2)
}

let lines: string[]
if ('issuer' in server) {
  const client = server.clients.post
  const auth = {
    mode: 'cloud',
    authority: server.issuer,
    apiUrl: server.apiUrl,
    clientId: client.clientId,
    clientSecretEnv: 'TIMELINE_CLIENT_SECRET',
    callbackUrl: 'http://127.0.0.1:4040',
    tokenFile: '.timeline-sheets/cloud-token.json',
  }
  lines = [
    'Reference Timeline cloud',
    `  OpenID Provider (authority)  ${server.issuer}   discovery: ${server.issuer}/.well-known/openid-configuration`,
    `  cloud API (apiUrl)           ${server.apiUrl}   profile: ${server.apiUrl}/v1/profile`,
    `  account data (serverUrl)     ${server.serverUrl}   API entry: ${server.serverUrl}api`,
    `vendor ${store.vendor.token}, ${seed?.activityCount ?? 0} activities, server time zone ${store.serverTimeZone}, access tokens live ${opts.accessTokenTtl} s`,
    '',
    'Clients (any http://127.0.0.1:<port>/ redirect; PKCE S256 required):',
    `  ${server.clients.post.clientId}  /  ${server.clients.post.clientSecret}   (client_secret_post, "clientAuth": "post")`,
    `  ${server.clients.basic.clientId}  /  ${server.clients.basic.clientSecret}   (client_secret_basic, "clientAuth": "basic")`,
    '',
    `The login page signs in at once, without a form, as ${server.account} (content editor: sees and may change everyone's tags).`,
    '',
    'Users (username / role; in the cloud only the account above signs in):',
    ...accounts.map((a) => `  ${a.username}  /  ${a.role}${a.timeZone ? `  (${a.timeZone})` : ''}`),
    '',
    'Try it: save this as reference-cloud.json',
    configSnippet(auth),
    '',
    `  export TIMELINE_CLIENT_SECRET=${client.clientSecret}`,
    '  npm start -- login --config reference-cloud.json --no-browser   # open the printed address in a browser on this machine',
    "                                                                   # (or: curl -sL -c jar -b jar '<address>')",
    '  npm start -- export --config reference-cloud.json               # later runs refresh the access token by themselves',
    '',
    `  curl -i ${server.apiUrl}/v1/profile        # 401 without a token`,
  ]
} else {
  const { apiUrl } = server
  const example = seed?.transfer ?? seed?.users[0]
  if (opts.ntlm) {
    const auth = { mode: 'ntlm', baseUrl: server.url, username: example?.username ?? 'EXAMPLE\\transfer', passwordEnv: 'TIMELINE_PASSWORD' }
    lines = [
      `Reference Timeline server (Windows accounts, NTLMv2) at ${apiUrl}`,
      `vendor ${store.vendor.token}, ${seed?.activityCount ?? 0} activities, server time zone ${store.serverTimeZone}`,
      '',
      ...userLines,
      '',
      'Try it: save this as reference-ntlm.json',
      configSnippet(auth),
      '',
      ...(example ? [`  export TIMELINE_PASSWORD=${example.password}`] : []),
      '  npm start -- export --config reference-ntlm.json',
      '',
      `  curl -i ${apiUrl}                          # 401, WWW-Authenticate: NTLM`,
      ...(example ? [`  curl --ntlm -u '${example.username}:${example.password}' -H 'Accept: ${mediaType}' ${apiUrl}/timelines`] : []),
    ]
  } else {
    lines = [
      `Reference Timeline server at ${apiUrl}`,
      `vendor ${store.vendor.token}, ${seed?.activityCount ?? 0} activities, server time zone ${store.serverTimeZone}`,
      '',
      ...userLines,
      '',
      'Walkthrough:',
      `  curl -i ${apiUrl}                                    # 401 with the token link`,
      ...(example
        ? [
            `  TOKEN=$(curl -s -d grant_type=password --data-urlencode 'username=${example.username}' --data-urlencode 'password=${example.password}' ${apiUrl}/token | sed 's/.*"token":"\\([0-9a-f]*\\)".*/\\1/')`,
          ]
        : []),
      `  curl -H "Authorization: Bearer $TOKEN" -H 'Accept: ${mediaType}' ${apiUrl}`,
      `  curl -H "Authorization: Bearer $TOKEN" -H 'Accept: ${mediaType}' ${apiUrl}/timelines`,
      ...(someTimeline
        ? [
            `  curl -H "Authorization: Bearer $TOKEN" -H 'Accept: ${mediaType}' '${apiUrl}/timelines/${someTimeline}/activities?fromTime=2026-03-23&toTime=2026-03-24'`,
          ]
        : []),
    ]
  }
}
lines.push('', 'Ctrl-C stops it.')
console.log(lines.join('\n'))

const stop = () => {
  void server.close().then(() => process.exit(0))
}
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
