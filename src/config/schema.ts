/**
 * The configuration file, validated once at the edge. Secrets never live in
 * the file: fields ending in `Env` name the environment variable that holds
 * them, so a config can be committed and shared.
 */
import { z } from 'zod'

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
 * Limits on every request to both services, in milliseconds, and an optional
 * deadline for a whole run. A request that passes a limit fails with a
 * message naming the URL and the setting; it is repeated like a 503.
 */
const timeouts = z
  .strictObject({
    /** Setting up the connection (TCP and TLS). */
    connectMs: z.int().min(1).max(ONE_DAY_MS).default(10_000),
    /** From sending a request until the response headers arrive. */
    firstByteMs: z.int().min(1).max(ONE_DAY_MS).default(30_000),
    /** Longest pause between two pieces of a response body. */
    idleBodyMs: z.int().min(1).max(ONE_DAY_MS).default(30_000),
    /** A whole request, redirects and body included. */
    totalMs: z.int().min(1).max(ONE_DAY_MS).default(120_000),
    /** The whole run (every target); unset: no deadline. `--deadline` on the command line wins. */
    runMs: z
      .int()
      .min(1)
      .max(7 * ONE_DAY_MS)
      .optional(),
  })
  .prefault({})

const timelinePace = z
  .strictObject({
    /** Requests in flight at once. */
    concurrency: z.int().min(1).max(64).default(4),
    /** Requests started per interval; the Timeline service publishes no limit. */
    requestsPerInterval: z.int().min(1).default(300),
    intervalMs: z.int().min(1).default(60_000),
  })
  .prefault({})

const passwordAuth = z.strictObject({
  mode: z.literal('password'),
  /** On-premise server address, e.g. `https://timeline.example.com` (the API is under /api). */
  baseUrl: serverUrl,
  username: z.string().min(1),
  passwordEnv: envName.default('TIMELINE_PASSWORD'),
})

const ntlmAuth = z.strictObject({
  mode: z.literal('ntlm'),
  baseUrl: serverUrl,
  /** `DOMAIN\\user` or `user`. */
  username: z.string().min(1),
  domain: z.string().optional(),
  passwordEnv: envName.default('TIMELINE_PASSWORD'),
})

const cloudAuth = z.strictObject({
  mode: z.literal('cloud'),
  /** OpenID Connect authority, e.g. `https://login.manictime.com`. */
  authority: cloudUrl.default('https://login.manictime.com'),
  /** Cloud API entry, e.g. `https://api.manictime.com` (profile at /v1/profile). */
  apiUrl: cloudUrl.default('https://api.manictime.com'),
  clientId: z.string().min(1),
  clientSecretEnv: envName.default('TIMELINE_CLIENT_SECRET'),
  clientAuth: z.enum(['post', 'basic']).default('post'),
  callbackUrl: cloudUrl.default('http://127.0.0.1:4040'),
  /** Where `login` stores the refresh token (owner-only). Relative to the config file. */
  tokenFile: z.string().min(1).default('.timeline-sheets/cloud-token.json'),
})

const timeline = z.strictObject({
  auth: z.discriminatedUnion('mode', [passwordAuth, ntlmAuth, cloudAuth]),
  pace: timelinePace,
})

const googleAuth = z.discriminatedUnion('mode', [
  z.strictObject({
    mode: z.literal('service-account'),
    /** Path of the service-account key JSON (relative to the config file). */
    keyFile: z.string().min(1),
  }),
  z.strictObject({
    mode: z.literal('installed-app'),
    clientId: z.string().min(1),
    clientSecretEnv: envName.default('GOOGLE_CLIENT_SECRET'),
    tokenFile: z.string().min(1).default('.timeline-sheets/google-token.json'),
  }),
  z.strictObject({ mode: z.literal('adc') }),
  z.strictObject({
    /** A fixed access token from an environment variable (tests, the Sheets fake). */
    mode: z.literal('static-token'),
    tokenEnv: envName.default('GOOGLE_ACCESS_TOKEN'),
  }),
])

const google = z
  .strictObject({
    auth: googleAuth,
    /** Another Sheets API root (the bundled fake); leave unset for Google. */
    rootUrl: urlWithoutUserInfo('Google sign-in belongs in "google.auth"').optional(),
    readsPerMinute: z.int().min(1).default(60),
    writesPerMinute: z.int().min(1).default(60),
    /** Length of Google's quota window; only a fake with a faster clock needs another value. */
    quotaWindowMs: z.int().min(100).default(60_000),
  })
  .optional()

const spreadsheet = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('workbook'),
    /** Path of the .xlsx file (relative to the config file). */
    path: z.string().min(1),
    /**
     * Protect the header and the tool's columns. Excel and LibreOffice then refuse to sort or delete rows
     * across locked cells (Google only warns), so teams whose managers sort may switch it off.
     */
    protect: z.boolean().default(true),
  }),
  z.strictObject({
    kind: z.literal('google'),
    spreadsheetId: z.string().regex(/^[A-Za-z0-9_-]{10,}$/, 'must be the id from the spreadsheet URL (…/d/<id>/edit)'),
  }),
])

const target = z.strictObject({
  /** Names the target in commands, locks and state; letters, digits, - and _. */
  name: z.string().regex(/^[A-Za-z0-9_-]+$/, 'may contain letters, digits, - and _ only'),
  spreadsheet,
  /** Owners whose Tags timelines are exported (usernames as the server writes them). Empty: every visible Tags timeline. */
  users: z.array(z.string().min(1)).default([]),
  /** IANA time zone the sheet shows local times in. */
  timeZone: z.string().min(1),
  window: z
    .strictObject({
      /** Days back from today (local) that the sheet covers, today included. */
      days: z.int().min(1).max(3660).default(35),
      /** Days at the end of the window re-read in full on every run to catch deletions and back-dated edits. */
      lookBackDays: z.int().min(0).max(3660).default(7),
    })
    .prefault({}),
  /** What an export does with a row whose activity was deleted on the server. */
  deletedRows: z.enum(['remove', 'mark']).default('remove'),
  /** Read-only tabs for other timelines, by schema name without the vendor prefix (e.g. ComputerUsage, Applications). */
  otherTimelines: z.array(z.string().regex(/^[A-Za-z]+$/)).default([]),
  tabs: z
    .strictObject({
      activities: z.string().min(1).default('Activities'),
      allowedTags: z.string().min(1).default('Allowed tags'),
      syncLog: z.string().min(1).default('Sync log'),
    })
    .prefault({}),
})

export const configSchema = z.strictObject({
  /** The JSON Schema an editor checks and completes the file with (config.schema.json); the tool ignores it. */
  $schema: z.string().optional(),
  /** Token in the API's identifiers: `manictime` for real servers, `service` as the spec writes it. */
  vendor: z
    .string()
    .regex(/^[a-z][a-z0-9-]*$/)
    .default('manictime'),
  timeline,
  google,
  /** Folder for cursors, run history, journals and locks (relative to the config file). */
  stateDir: z.string().min(1).default('.timeline-sheets'),
  timeouts,
  targets: z.array(target).min(1, 'needs at least one target'),
})

export type Config = z.infer<typeof configSchema>
export type TargetConfig = Config['targets'][number]
export type TimelineAuthConfig = Config['timeline']['auth']
export type GoogleConfig = NonNullable<Config['google']>
