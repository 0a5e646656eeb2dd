/**
 * `npm run reference-server -- [options]`: starts the reference Timeline
 * server with seeded data and prints how to talk to it.
 */
import { Command, InvalidArgumentError } from 'commander'
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
  .option('--report-deletions', 'list deletedActivityIds on incremental reads', false)
  .option('--tag-source <source>', 'service or other (other refuses tag list POSTs)', 'service')
  .option('--directory-users', 'usernames as EXAMPLE\\user instead of e-mail', false)
  .option('--latency <ms>', 'delay every answer', integer('latency', 0), 0)
  .option('--rate-limit-share <0..1>', 'answer this share of requests with 429', Number.parseFloat)
  .option('--base-path <path>', 'serve the API under this path', '/')

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
  directoryUsers: boolean
  latency: number
  rateLimitShare?: number
  basePath: string
}>()

if (opts.tagSource !== 'service' && opts.tagSource !== 'other') {
  program.error(`--tag-source must be "service" or "other", got ${JSON.stringify(opts.tagSource)}`)
}

let server: ReferenceServer
try {
  server = await startReferenceServer({
    port: opts.port,
    vendor: opts.vendor,
    serverTimeZone: opts.serverTimeZone,
    reportDeletions: opts.reportDeletions,
    tagSource: opts.tagSource as 'service' | 'other',
    basePath: opts.basePath,
    data: {
      users: opts.users,
      days: opts.days,
      startDate: opts.startDate,
      seed: opts.seed,
      directoryUsers: opts.directoryUsers,
    },
    faults: {
      latencyMs: opts.latency,
      ...(opts.rateLimitShare === undefined ? {} : { rateLimit: { share: opts.rateLimitShare } }),
    },
  })
} catch (error) {
  console.error(`reference-server: could not start: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
}

const { credentials, apiUrl, store } = server
const accounts = [credentials.admin, credentials.transfer, credentials.reader, ...credentials.users].filter(
  (account) => account !== undefined,
)
const example = credentials.transfer ?? credentials.users[0]
const someTimeline = credentials.users[0]?.tagsTimelineKey
const mediaType = store.vendor.mediaType
const lines = [
  `Reference Timeline server at ${apiUrl}`,
  `vendor ${store.vendor.token}, ${server.seed?.activityCount ?? 0} activities, server time zone ${store.serverTimeZone}`,
  '',
  'Users (username / password / role):',
  ...accounts.map((a) => `  ${a.username}  /  ${a.password}  /  ${a.role}${a.timeZone ? `  (${a.timeZone})` : ''}`),
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
  '',
  'Ctrl-C stops it.',
]
console.log(lines.join('\n'))

const stop = () => {
  void server.close().then(() => process.exit(0))
}
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
