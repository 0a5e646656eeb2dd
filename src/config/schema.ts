/**
 * The configuration file, validated once at the edge. Secrets never live in
 * the file: fields ending in `Env` name the environment variable that holds
 * them, so a config can be committed and shared.
 */
import { z } from 'zod'
import { DAY_START_PATTERN } from '../core/day-start.ts'

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be the name of an environment variable, such as TIMELINE_PASSWORD')

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' })

/**
 * An http(s) URL without a user name or password: a secret in a URL ends up
 * in logs, messages and proxies. `instead` says where the secret belongs.
 */
const urlWithoutUserInfo = (instead: string) =>
  httpUrl.refine((raw) => {
    // zod runs this even when the URL check failed; that failure is reported already.
    if (!URL.canParse(raw)) return true
    const url = new URL(raw)
    return url.username === '' && url.password === ''
  }, `must not contain a user name or password; ${instead}`)

const serverUrl = urlWithoutUserInfo(
  'put the user name in "username" and the password in the environment variable that "passwordEnv" names',
)
const cloudUrl = urlWithoutUserInfo('put the client secret in the environment variable that "clientSecretEnv" names')

/** Longest a timer can be set for (setTimeout's limit is about 24.8 days); a day is plenty for one request. */
const ONE_DAY_MS = 86_400_000

/**
 * Limits on every request to both services, in milliseconds, what a run may
 * lose to requests that time out, and an optional deadline for a whole run. A
 * request that passes a limit fails with a message naming the service, the URL
 * and the setting; a read is repeated like after a 503 until the service's
 * budget for timed-out requests is spent (decisions/0015-hung-services.md).
 */
const timeouts = z
  .strictObject({
    connectMs: z.int().min(1).max(ONE_DAY_MS).default(10_000).describe('Milliseconds to set up a connection (TCP and TLS).'),
    firstByteMs: z
      .int()
      .min(1)
      .max(ONE_DAY_MS)
      .default(30_000)
      .describe("Milliseconds from sending a request until the answer's headers arrive."),
    idleBodyMs: z.int().min(1).max(ONE_DAY_MS).default(30_000).describe('Longest pause, in milliseconds, between two pieces of an answer.'),
    totalMs: z.int().min(1).max(ONE_DAY_MS).default(120_000).describe('Milliseconds for a whole request, redirects and body included.'),
    googleWriteMs: z
      .int()
      .min(1)
      .max(ONE_DAY_MS)
      .default(200_000)
      .describe('Milliseconds for a Google Sheets write, answer and all: Google may work on one for up to 180 s.'),
    retryBudgetMs: z
      .int()
      .min(1)
      .max(ONE_DAY_MS)
      .default(120_000)
      .describe(
        'Milliseconds a run may spend, per service, in requests that time out; once spent, nothing is repeated or sent to that service and the run ends.',
      ),
    retryDelayMs: z
      .int()
      .min(1)
      .max(60_000)
      .default(500)
      .describe(
        'Milliseconds a run waits before it repeats a failed request the first time, doubled for each repeat after; only tests against a fake need another value.',
      ),
    runMs: z
      .int()
      .min(1)
      .max(7 * ONE_DAY_MS)
      .optional()
      .describe('Deadline of a whole run (every target), in milliseconds; unset: none. --deadline on the command line wins.'),
  })
  .prefault({})
  .describe(
    "Limits on every request to both services; a read that passes one is repeated like a busy server's answer, until the service's retryBudgetMs is spent.",
  )

const timelinePace = z
  .strictObject({
    concurrency: z.int().min(1).max(64).default(4).describe('Requests to the Timeline service in flight at once.'),
    requestsPerInterval: z.int().min(1).default(300).describe('Requests started per intervalMs; the Timeline service publishes no limit.'),
    intervalMs: z.int().min(1).default(60_000).describe('Length of the interval requestsPerInterval counts in, in milliseconds.'),
  })
  .prefault({})
  .describe('How fast the tool talks to the Timeline service.')

const baseUrl = serverUrl.describe('On-premise server address, e.g. https://timeline.example.com (the API is under /api).')
const passwordEnv = envName.default('TIMELINE_PASSWORD').describe('Name of the environment variable that holds the password.')

const passwordAuth = z.strictObject({
  mode: z.literal('password').describe('On-premise server, signed in with a user name and password (the OAuth password flow).'),
  baseUrl,
  username: z.string().min(1).describe('The account that reads and writes for everyone, e.g. transfer@example.com.'),
  passwordEnv,
})

const ntlmAuth = z.strictObject({
  mode: z.literal('ntlm').describe('On-premise server, signed in with a Windows account (NTLMv2).'),
  baseUrl,
  username: z.string().min(1).describe('The Windows account: DOMAIN\\user or user.'),
  domain: z.string().optional().describe('The Windows domain, when username does not name it.'),
  passwordEnv,
})

/** Where a sign-in command stores its refresh token; the file is written owner-only. */
function tokenFile(defaultPath: string, command: string) {
  return z
    .string()
    .min(1)
    .default(defaultPath)
    .describe(`Where ${command} stores the refresh token (owner-only), relative to the config file.`)
}

const cloudAuth = z.strictObject({
  mode: z.literal('cloud').describe('ManicTime Cloud: run timeline-sheets login once in a browser; later runs refresh by themselves.'),
  authority: cloudUrl.default('https://login.manictime.com').describe('OpenID Connect authority that signs in.'),
  apiUrl: cloudUrl.default('https://api.manictime.com').describe('Cloud API entry (the profile is at /v1/profile).'),
  clientId: z.string().min(1).describe('The OAuth client id of this installation.'),
  clientSecretEnv: envName.default('TIMELINE_CLIENT_SECRET').describe('Name of the environment variable that holds the client secret.'),
  clientAuth: z
    .enum(['post', 'basic'])
    .default('post')
    .describe('How the client secret is sent to the token endpoint: in the form (post) or as HTTP Basic (basic).'),
  callbackUrl: cloudUrl.default('http://127.0.0.1:4040').describe('Loopback address login listens on for the browser to come back to.'),
  tokenFile: tokenFile('.timeline-sheets/cloud-token.json', 'login'),
})

const timeline = z
  .strictObject({
    auth: z.discriminatedUnion('mode', [passwordAuth, ntlmAuth, cloudAuth]).describe('How to sign in to the Timeline service.'),
    pace: timelinePace,
    userCanAppendTags: z
      .boolean()
      .default(true)
      .describe(
        'The server\'s "User can append tags to allowed tags" (checked by default in ManicTime): false when it is unchecked, so a combination that only starts with an allowed one is flagged. The API cannot read the setting.',
      ),
  })
  .describe('The Timeline and Tag service (ManicTime Server or Cloud) the activities come from.')

const serviceAccountAuth = z.strictObject({
  mode: z.literal('service-account').describe('A service account, for unattended runs: share the spreadsheet with its e-mail.'),
  keyFile: z.string().min(1).describe("Path of the service account's key JSON, relative to the config file."),
})

const installedAppAuth = z.strictObject({
  mode: z.literal('installed-app').describe("A person's own Google account: run timeline-sheets login --google once."),
  clientId: z.string().min(1).describe('The OAuth client id (desktop app) of this installation.'),
  clientSecretEnv: envName.default('GOOGLE_CLIENT_SECRET').describe('Name of the environment variable that holds the client secret.'),
  tokenFile: tokenFile('.timeline-sheets/google-token.json', 'login --google'),
})

const applicationDefaultAuth = z.strictObject({
  mode: z
    .literal('adc')
    .describe(
      "Application default credentials, in Google's order: the file GOOGLE_APPLICATION_CREDENTIALS names, gcloud's file, then the service account the metadata server returns.",
    ),
})

const staticTokenAuth = z.strictObject({
  mode: z.literal('static-token').describe('A fixed access token from an environment variable (tests, the Sheets fake).'),
  tokenEnv: envName.default('GOOGLE_ACCESS_TOKEN').describe('Name of the environment variable that holds the access token.'),
})

const googleAuth = z
  .discriminatedUnion('mode', [serviceAccountAuth, installedAppAuth, applicationDefaultAuth, staticTokenAuth])
  .describe('How to sign in to Google.')

const google = z
  .strictObject({
    auth: googleAuth,
    rootUrl: urlWithoutUserInfo('Google sign-in belongs in "google.auth"')
      .optional()
      .describe('Another Sheets API root (the bundled fake); leave unset for Google.'),
    readsPerMinute: z.int().min(1).default(60).describe("Sheets read requests per minute (Google's per-user quota is 60)."),
    writesPerMinute: z.int().min(1).default(60).describe("Sheets write requests per minute (Google's per-user quota is 60)."),
    quotaWindowMs: z
      .int()
      .min(100)
      .default(60_000)
      .describe("Length of Google's quota window in milliseconds; only a fake with a faster clock needs another value."),
    gzipRequests: z
      .boolean()
      .default(true)
      .describe(
        "Send request bodies of 1 KB and more gzip-compressed, as Google's Java and .NET API clients do (a first export's rows travel at about a fifteenth of their size). Switch off only for a proxy that refuses compressed requests.",
      ),
    watch: z
      .boolean()
      .default(false)
      .describe(
        "Let `sync --watch` see each spreadsheet's Drive version, one small request an interval: the sign-in also asks for read-only Drive metadata (drive.metadata.readonly).",
      ),
  })
  .optional()
  .describe('Google Sheets: sign-in and request pace. Needed by targets whose spreadsheet is a Google one.')

const spreadsheet = z
  .discriminatedUnion('kind', [
    z.strictObject({
      kind: z.literal('workbook').describe('A local .xlsx workbook (Excel, LibreOffice).'),
      path: z.string().min(1).describe('Path of the .xlsx file, relative to the config file.'),
      // Excel and LibreOffice refuse to sort or delete rows across locked cells (Google only warns).
      protect: z
        .boolean()
        .default(true)
        .describe("Protect the header and the tool's columns; teams whose managers sort rows may switch it off."),
    }),
    z.strictObject({
      kind: z.literal('google').describe('A Google spreadsheet (needs "google" in the config).'),
      spreadsheetId: z
        .string()
        .regex(/^[A-Za-z0-9_-]{10,}$/, 'must be the id from the spreadsheet URL (…/d/<id>/edit)')
        .describe('The id in the spreadsheet URL: …/d/<id>/edit.'),
    }),
  ])
  .describe('The spreadsheet the target fills: a Google one or a local workbook.')

const target = z
  .strictObject({
    name: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/, 'may contain letters, digits, - and _ only')
      .describe('Names the target in commands (--target), locks and state; letters, digits, - and _.'),
    spreadsheet,
    users: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'Owners whose Tags timelines the sheet covers, as the server writes their user names; with teams empty too: every visible Tags timeline (the whole server).',
      ),
    teams: z
      .array(z.string().min(1))
      .default([])
      .describe('Teams (names from the top-level "teams") whose members the sheet covers, beside users.'),
    allowedTagsEdits: z
      .enum(['read-only', 'own', 'own-and-everyone'])
      .optional()
      .describe(
        "Which Allowed tags lines the sheet may change: own (lines for the target's users and teams only), own-and-everyone (also the lines for everyone), read-only (none). Default: own for a target that lists users or teams, own-and-everyone for the whole server.",
      ),
    timeZone: z.string().min(1).describe('IANA time zone the sheet shows local times in (and sync --every runs in), e.g. Europe/Berlin.'),
    dayStartsAt: z
      .string()
      .regex(DAY_START_PATTERN, 'must be hours and minutes from 00:00 to 23:59, such as "04:00"')
      .default('00:00')
      .describe(
        "The hour a day starts at, as ManicTime's day start shift counts it (04:00: from 4 am to 4 am). The Date column, the window, the look-back and the Summary follow it; the API does not expose the setting, so type the one ManicTime uses.",
      ),
    window: z
      .strictObject({
        days: z.int().min(1).max(3660).default(35).describe('Days back from today (local) that the sheet covers, today included.'),
        lookBackDays: z
          .int()
          .min(0)
          .max(3660)
          .default(7)
          .describe('Days at the end of the window re-read in full on every run, to catch deletions and back-dated edits.'),
      })
      .prefault({})
      .describe('The local days the sheet covers.'),
    deletedRows: z
      .enum(['remove', 'mark'])
      .default('remove')
      .describe('What an export does with a row whose activity was deleted on the server: remove it, or mark it deleted.'),
    otherTimelines: z
      .array(z.string().regex(/^[A-Za-z]+$/))
      .default([])
      .describe('Read-only tabs for other timelines, by schema name without the vendor prefix (e.g. ComputerUsage, Applications).'),
    approvals: z
      .strictObject({
        period: z
          .enum(['week', 'month'])
          .default('week')
          .describe('What a manager approves at once for a person: an ISO week (Monday to Sunday) or a calendar month.'),
        tab: z.string().min(1).default('Approvals').describe('Title of the tab with one row per person and period.'),
      })
      .optional()
      .describe(
        "Managers approve periods in an Approvals tab; an approved period takes no more edits from the sheet, its activities are shown in an Approved tab closed to managers (Google: protected for the tool's account and the owner; workbook: locked), and its record is kept beside the state (decisions/0026). Absent: no approvals.",
      ),
    tabs: z
      .strictObject({
        activities: z.string().min(1).default('Activities').describe('Title of the tab with one row per activity.'),
        allowedTags: z.string().min(1).default('Allowed tags').describe('Title of the tab with the allowed tag combinations.'),
        syncLog: z.string().min(1).default('Sync log').describe('Title of the tab with one row per run.'),
      })
      .prefault({})
      .describe(
        'Titles of the tabs the tool writes: each its own (Google Sheets and Excel compare titles without case), and none "Summary", the title of the tab of totals.',
      ),
  })
  .describe('One spreadsheet and the timelines it shows.')

/**
 * Who is told when a run fails (`sync`, each `sync --watch` interval): a webhook that takes a JSON body with
 * `text` (Slack's and Microsoft Teams' incoming webhooks show it). Bounded, so a slow receiver never holds a run.
 */
const notify = z
  .strictObject({
    webhook: z
      .strictObject({
        urlEnv: envName.describe(
          'Name of the environment variable that holds the webhook URL (Slack, Microsoft Teams or a receiver of your own); the URL is a credential, so it never goes in the config.',
        ),
        timeoutMs: z
          .int()
          .min(100)
          .max(30_000)
          .default(5_000)
          .describe('Milliseconds a notice may take, answer and all; a receiver slower than that is left, and the run goes on.'),
      })
      .describe('POSTs { text, timelineSheets: { event, target, code, message, hint, runId, at, seeMore } } to the URL.'),
    repeatAfterHours: z
      .number()
      .min(1)
      .max(24 * 30)
      .default(24)
      .describe('The same failure of a target is told again after this many hours (once otherwise); the recovery is told once.'),
  })
  .describe(
    'Tell someone when a run fails or a safety guard stops it, and once when the next run succeeds. A notice names the target, the error code and message, the run id; never a secret or a row.',
  )

export const configSchema = z.strictObject({
  $schema: z
    .string()
    .optional()
    .describe('The JSON Schema an editor checks and completes this file with (./config.schema.json); the tool ignores it.'),
  vendor: z
    .string()
    .regex(/^[a-z][a-z0-9-]*$/)
    .default('manictime')
    .describe("Token in the API's identifiers: manictime for real servers, service as the specification writes it."),
  timeline,
  google,
  stateDir: z
    .string()
    .min(1)
    .default('.timeline-sheets')
    .describe('Folder for cursors, run history, journals and locks, relative to the config file.'),
  timeouts,
  teams: z
    .record(z.string().min(1), z.array(z.string().min(1)).min(1, 'needs at least one member'))
    .default({})
    .describe(
      'Who is in which team, once for the whole config: team name (as {Team} entries of the allowed tags name it) → user names. The API has no team directory.',
    ),
  targets: z.array(target).min(1, 'needs at least one target').describe('The spreadsheets to fill, one target each.'),
  parallelTargets: z
    .int()
    .min(1)
    .max(64)
    .default(8)
    .describe('Targets export and sync work on at once; their requests share the paces of both services. 1 runs them one after another.'),
  notify: notify.optional(),
})

/**
 * A target as the tool runs it, as `parseConfig` resolves it: `users` holds everyone it covers (those it lists and
 * its teams' members), `teamDirectory` the config's teams (for `{Team}` lines) and `userCanAppendTags` the
 * server's setting its rows are judged by.
 */
export type TargetConfig = z.infer<typeof target> & {
  teamDirectory?: Readonly<Record<string, readonly string[]>>
  userCanAppendTags?: boolean
}
export type Config = Omit<z.infer<typeof configSchema>, 'targets'> & { targets: TargetConfig[] }
export type TimelineAuthConfig = Config['timeline']['auth']
export type GoogleConfig = NonNullable<Config['google']>
export type NotifyConfig = NonNullable<Config['notify']>
