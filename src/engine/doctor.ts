/**
 * `timeline-sheets doctor`: what a nightly sync needs, checked one by one, and what to fix. The checks are
 * data (a name and a function that passes, warns or fails with a one-line fix); a check whose prerequisite
 * failed is skipped rather than run into the same failure. Doctor only reads: no request that changes the
 * Timeline server or the spreadsheet, and nothing written to the state folder.
 *
 * Longer than most files because each check is a short entry of one list, kept together so the order (a
 * check's prerequisites first) is visible.
 */
import path from 'node:path'
import type { LoadedConfig } from '../config/load.ts'
import type { TargetConfig } from '../config/schema.ts'
import { scopeOfTarget } from '../core/target-scope.ts'
import { describeServer, sameServer } from '../core/server-identity.ts'
import { HttpError, TimelineSheetsError, type ErrorCode } from '../errors.ts'
import type { SpreadsheetFacts, SpreadsheetProbe, WriteTestFinding } from '../sheets/probe.ts'
import { fileAccessError } from '../state/file-access.ts'
import { writableFolder } from '../state/writable-folder.ts'
import { lockHolder } from '../state/lock.ts'
import { loadState, stateLocation } from '../state/target-state.ts'
import type { ServerIdentity, TimelineClient } from '../timeline/client.ts'
import type { TimelineInfo } from '../timeline/model.ts'

export type CheckStatus = 'pass' | 'warn' | 'fail' | 'skip'

/** One line of the doctor's report. */
export interface CheckResult {
  /** What was checked: `Timeline sign-in`, `lock free`. */
  name: string
  /** The target the check is about; absent for the config and the Timeline server. */
  target?: string
  status: CheckStatus
  /** What was found. */
  detail: string
  /** What to do about it (warn and fail). */
  fix?: string
  /** The error a failure stands for; a sync would stop with its exit code. */
  code?: ErrorCode
}

export type CheckOutcome =
  | { status: 'pass'; detail: string }
  | { status: 'warn'; detail: string; fix: string }
  | { status: 'fail'; detail: string; fix: string; code: ErrorCode }
  | { status: 'skip'; detail: string }

/** A check as data: its name, the context it needs filled in by earlier checks, and what it does. */
export interface Check<C> {
  name: string
  needs?: (keyof C)[]
  run(context: C): Promise<CheckOutcome>
}

export interface DoctorDeps {
  /** Reads and validates the config file. */
  loadConfig(): Promise<LoadedConfig>
  /** Only this target (`--target`); default every target. */
  targetName?: string
  /** `--write-test`: try, in a scratch tab, the spreadsheet behaviours writes rely on (Google). */
  writeTest?: boolean
  /** The Timeline client the config describes; signs in on its first request. */
  timelineClient(loaded: LoadedConfig): Promise<TimelineClient>
  /** Read-only access to a target's spreadsheet or workbook. */
  spreadsheetProbe(loaded: LoadedConfig, target: TargetConfig): Promise<SpreadsheetProbe>
  /** @default () => new Date() */
  now?: () => Date
  /** Whether a lock holder's process lives. @default a signal-0 probe */
  isAlive?: (pid: number) => boolean
  /** A check threw what is not a typed error: a bug, shown as a failed check; the CLI prints its stack with --verbose. */
  onUnexpectedError?: (check: string, error: unknown) => void
}

export interface DoctorReport {
  checks: CheckResult[]
  /** True when no check failed: a sync would work (warnings do not stop it). */
  ok: boolean
}

/** What the server checks find out, for the checks after them. */
interface ServerContext {
  loaded?: LoadedConfig
  targets?: TargetConfig[]
  client?: TimelineClient
  server?: ServerIdentity
  timelines?: TimelineInfo[]
  /** Whether the account may read everyone's allowed tags (getAll): a Content editor or an administrator. */
  readsAllTags?: boolean
}

/** What the per-target checks find out. */
interface TargetContext {
  loaded: LoadedConfig
  target: TargetConfig
  server?: ServerIdentity
  readsAllTags?: boolean
  probe?: SpreadsheetProbe
  facts?: SpreadsheetFacts
  /** The refusal the spreadsheet answered, when it did. */
  probeError?: TimelineSheetsError
  /** What `--write-test` found, one line each. */
  findings?: WriteTestFinding[]
}

/** Google allows 60 reads and 60 writes a minute per user (and 300 per project). */
const GOOGLE_PER_USER_PER_MINUTE = 60

/** Runs every check: the config and the Timeline server first, then each selected target. */
export async function runDoctor(deps: DoctorDeps): Promise<DoctorReport> {
  const now = deps.now ?? (() => new Date())
  const server: ServerContext = {}
  const checks = await runChecks(serverChecks(deps, now), server, [], deps.onUnexpectedError)
  for (const target of server.targets ?? []) {
    const context: TargetContext = {
      loaded: server.loaded!,
      target,
      ...(server.server ? { server: server.server } : {}),
      ...(server.readsAllTags !== undefined ? { readsAllTags: server.readsAllTags } : {}),
    }
    const results = await runChecks(targetChecks(deps, now, target), context, checks, deps.onUnexpectedError)
    checks.push(...results.map((r) => ({ ...r, target: target.name })))
    if (deps.writeTest) checks.push(...(await writeTestResults(context, results)).map((r) => ({ ...r, target: target.name })))
  }
  return { checks, ok: checks.every((c) => c.status !== 'fail') }
}

/**
 * Runs checks in order; a check whose `needs` an earlier check did not fill in is skipped, naming the first
 * failure among `earlier` and these.
 */
export async function runChecks<C extends object>(
  checks: Check<C>[],
  context: C,
  earlier: CheckResult[] = [],
  onUnexpectedError: (check: string, error: unknown) => void = () => undefined,
): Promise<CheckResult[]> {
  const results: CheckResult[] = []
  for (const check of checks) {
    const missing = (check.needs ?? []).filter((key) => context[key] === undefined)
    const blocker = [...earlier, ...results].find((r) => r.status === 'fail')?.name
    const outcome: CheckOutcome =
      missing.length > 0
        ? { status: 'skip', detail: blocker ? `not checked: "${blocker}" failed` : 'not checked: an earlier check found nothing to check' }
        : await check.run(context).catch((error: unknown) => {
            const outcome = failureOf(error)
            if ('code' in outcome && outcome.code === 'TS_INTERNAL') onUnexpectedError(check.name, error)
            return outcome
          })
    results.push({ name: check.name, ...outcome })
  }
  return results
}

const pass = (detail: string): CheckOutcome => ({ status: 'pass', detail })
const warn = (detail: string, fix: string): CheckOutcome => ({ status: 'warn', detail, fix })
const fail = (code: ErrorCode, detail: string, fix: string): CheckOutcome => ({ status: 'fail', detail, fix, code })

/** A check that threw: its error, as the line a sync would have stopped with. */
function failureOf(error: unknown): CheckOutcome {
  if (error instanceof TimelineSheetsError) {
    return fail(error.code, error.message, error.hint ?? 'See the message.')
  }
  const file = (error as NodeJS.ErrnoException | undefined)?.path
  const refused = typeof file === 'string' ? fileAccessError(error, { what: 'the file', file, action: 'use' }) : undefined
  if (refused) return failureOf(refused)
  const message = error instanceof Error ? error.message : String(error)
  return fail('TS_INTERNAL', `Unexpected error: ${message}`, 'Run again with --verbose and report the output (it contains no secrets).')
}

function serverChecks(deps: DoctorDeps, now: () => Date): Check<ServerContext>[] {
  return [
    {
      name: 'config valid',
      async run(context) {
        const loaded = await deps.loadConfig()
        const all = loaded.config.targets
        const targets = deps.targetName === undefined ? all : all.filter((t) => t.name === deps.targetName)
        if (targets.length === 0) {
          return fail(
            'TS_USAGE',
            `${loaded.file} has no target named "${deps.targetName}"`,
            `Targets: ${all.map((t) => t.name).join(', ')}.`,
          )
        }
        context.loaded = loaded
        context.targets = targets
        return pass(`${loaded.file}: ${targets.length === 1 ? 'target' : 'targets'} ${targets.map((t) => t.name).join(', ')}`)
      },
    },
    {
      name: 'Timeline sign-in',
      needs: ['loaded'],
      async run(context) {
        const client = await deps.timelineClient(context.loaded!)
        // The home resource is the first call that needs the sign-in.
        await client.home()
        context.client = client
        context.server = await client.identity()
        return pass(`signed in to ${describeServer(context.server)}`)
      },
    },
    {
      name: 'Content editor (getAll)',
      needs: ['client', 'server'],
      async run(context) {
        const { client, server } = context
        try {
          await client!.readAllowedTags({ all: true })
        } catch (error) {
          if (!(error instanceof TimelineSheetsError) || error.code !== 'TS_FORBIDDEN') throw error
          context.readsAllTags = false
          return fail(
            'TS_FORBIDDEN',
            `${server!.account ?? 'the account'} may not read every user's allowed tags (getAll refused): it is not a Content editor. ` +
              "Export works with it (a Content reader sees every timeline; the Allowed tags tab is left as it is), but import and sync cannot change other users' tags or send the Allowed tags tab",
            `Give ${server!.account ?? 'the account'} the Content editor permission on the Timeline server.`,
          )
        }
        context.readsAllTags = true
        // The API names no role; getAll is allowed only to an administrator or a Content editor, and doctor
        // writes nothing, so the first import is what proves the writes.
        return pass(`getAll allowed: ${server!.account ?? 'the account'} is a Content editor or administrator (writes not tried)`)
      },
    },
    {
      name: 'Tags timelines visible',
      needs: ['client', 'targets'],
      async run(context) {
        const timelines = await context.client!.tagsTimelines()
        const account = context.server?.account ?? 'the account'
        if (timelines.length === 0) {
          return fail(
            'TS_FORBIDDEN',
            `${account} sees no Tags timeline`,
            `Give ${account} the Content editor permission, so it sees every user's Tags timeline.`,
          )
        }
        const owners = new Set(timelines.map((t) => t.ownerUsername.toLowerCase()))
        const missing = context.targets!.flatMap((t) => t.users.filter((u) => !owners.has(u.toLowerCase())).map((u) => `${u} (${t.name})`))
        if (missing.length > 0) {
          return fail(
            'TS_CONFIG_INVALID',
            `no Tags timeline visible for ${missing.join(', ')}; ${account} sees ${timelines.length}`,
            'Check the user names in targets[].users against the server, or give the account the Content editor permission.',
          )
        }
        context.timelines = timelines
        return pass(`${timelines.length} visible to ${account}`)
      },
    },
    {
      name: 'updatedactivities link',
      needs: ['client', 'timelines', 'targets'],
      async run({ client, timelines, targets }) {
        const wanted = new Set(targets!.flatMap((t) => t.users.map((u) => u.toLowerCase())))
        const timeline = timelines!.find((t) => wanted.size === 0 || wanted.has(t.ownerUsername.toLowerCase())) ?? timelines![0]!
        const to = now()
        const from = new Date(to.getTime() - 24 * 3_600_000)
        const read = await client!.readActivities(timeline, { from: from.toISOString(), to: to.toISOString() })
        if (read.updatedActivitiesUrl === undefined) {
          return warn(
            `the server sent no updatedactivities link with ${timeline.ownerUsername}'s activities: every run reads the whole window again`,
            'Runs still work, only slower; a server that sends the link (ManicTime Server 4.1 or newer) makes later runs incremental.',
          )
        }
        return pass(`present (${timeline.ownerUsername}'s Tags timeline): later runs read only what changed`)
      },
    },
  ]
}

function targetChecks(deps: DoctorDeps, now: () => Date, target: TargetConfig): Check<TargetContext>[] {
  const google = target.spreadsheet.kind === 'google'
  const checks: Check<TargetContext>[] = [
    {
      name: 'people and permissions',
      async run({ readsAllTags }) {
        return pass(describeNeeds(target, readsAllTags))
      },
    },
    {
      name: google ? 'Google sign-in, spreadsheet reachable' : 'workbook readable',
      async run(context) {
        const probe = await deps.spreadsheetProbe(context.loaded, target)
        context.probe = probe
        try {
          context.facts = await probe.inspect()
        } catch (error) {
          if (error instanceof TimelineSheetsError) context.probeError = error
          if (error instanceof HttpError && error.code === 'TS_SHEETS_API') return sheetsRefusal(error)
          throw error
        }
        const title = context.facts.title === path.basename(probe.describe()) ? '' : ` ("${context.facts.title}")`
        return pass(`${probe.describe()}${title}${probe.principal ? ` as ${probe.principal}` : ''}`)
      },
    },
    {
      name: google ? 'spreadsheet editable' : 'workbook writable',
      needs: ['probe', 'facts'],
      async run({ probe, facts }) {
        const who = probe!.principal ?? 'the Google account timeline-sheets signs in as'
        if (facts!.canEdit === false) {
          return fail(
            'TS_FORBIDDEN',
            `${who} may read but not edit the spreadsheet (${facts!.editEvidence})`,
            `Share it with ${who} as editor.`,
          )
        }
        if (facts!.canEdit === undefined) {
          return warn(
            `readable; edit rights not proven: ${facts!.editEvidence}, and doctor writes nothing to find out`,
            `Make sure it is shared with ${who} as editor; the first export shows it.`,
          )
        }
        return pass(facts!.editEvidence)
      },
    },
  ]
  if (google) {
    checks.push(
      {
        name: 'quota headroom',
        needs: ['probe'],
        async run({ loaded, probeError, facts }) {
          if (probeError instanceof HttpError && probeError.status === 429) {
            return fail(
              'TS_SHEETS_API',
              `Google refused the read for quota (429): ${probeError.message}`,
              'Wait a minute and run again; lower google.readsPerMinute if it keeps happening.',
            )
          }
          if (facts === undefined) return { status: 'skip', detail: 'not checked: the spreadsheet did not answer' }
          const { readsPerMinute, writesPerMinute } = loaded.config.google ?? { readsPerMinute: 60, writesPerMinute: 60 }
          const pace = `${readsPerMinute} reads and ${writesPerMinute} writes a minute`
          if (Math.max(readsPerMinute, writesPerMinute) > GOOGLE_PER_USER_PER_MINUTE) {
            return warn(
              `the config allows ${pace}, above Google's ${GOOGLE_PER_USER_PER_MINUTE} per user: runs will meet 429s and wait`,
              `Set google.readsPerMinute and google.writesPerMinute to ${GOOGLE_PER_USER_PER_MINUTE} or less, unless the project's quota was raised.`,
            )
          }
          // Google tells no remaining quota; a read answered and a pace within the per-user limit is what can be checked.
          return pass(`read answered without 429; the pace (${pace}) is within Google's ${GOOGLE_PER_USER_PER_MINUTE} per user`)
        },
      },
      {
        name: 'time zone',
        needs: ['facts'],
        async run({ facts }) {
          const sheetZone = facts!.timeZone
          if (!facts!.laidOut) return pass(`the first export sets the spreadsheet's zone (${sheetZone ?? 'none'}) to ${target.timeZone}`)
          if (sheetZone !== undefined && sameZone(sheetZone, target.timeZone)) return pass(`${target.timeZone}, as the target`)
          return warn(
            `the spreadsheet is in ${sheetZone ?? 'no time zone'}, the target in ${target.timeZone}: times are written in ${target.timeZone}, ` +
              `but TODAY(), NOW() and the edit history follow ${sheetZone ?? "Google's default"}`,
            `Set the spreadsheet's zone (File > Settings > Time zone) to ${target.timeZone}, or correct the target's timeZone.`,
          )
        },
      },
    )
  }
  checks.push(
    {
      name: 'state of this server',
      needs: ['server'],
      async run({ loaded, server }) {
        const location = stateLocation(loaded.resolvePath(loaded.config.stateDir), target.name)
        const { state, fresh } = await loadState(location, target.name)
        if (fresh) return pass(`no state yet: the first run starts one for ${describeServer(server!)}`)
        if (!state.server) return pass(`${location.stateFile} names no server yet: the next run binds it to ${describeServer(server!)}`)
        if (sameServer(state.server, server!)) return pass(`${location.stateFile} belongs to ${describeServer(state.server)}`)
        return fail(
          'TS_STATE',
          `${location.stateFile} belongs to ${describeServer(state.server)}, but the config signs in to ${describeServer(server!)}`,
          'If the target moved to this server, run `export --full` once (a fresh state for it); to keep both, give this config its own "stateDir".',
        )
      },
    },
    {
      name: 'state folder writable',
      async run({ loaded }) {
        const folder = stateLocation(loaded.resolvePath(loaded.config.stateDir), target.name).folder
        const existing = await writableFolder(folder, { what: 'the state folder', setting: 'stateDir' })
        return pass(existing === folder ? folder : `${folder} (made by the first run in ${existing})`)
      },
    },
    {
      name: 'lock free',
      async run({ loaded }) {
        const file = stateLocation(loaded.resolvePath(loaded.config.stateDir), target.name).lockFile
        const holder = await lockHolder(file, { now: () => now().getTime(), ...(deps.isAlive ? { isAlive: deps.isAlive } : {}) })
        if (!holder) return pass(`no run holds ${file}`)
        return fail(
          'TS_LOCKED',
          `${holder.command} (pid ${holder.pid} on ${holder.host}) holds ${file} since ${holder.createdAt}`,
          `Wait for it to finish; if no such run exists, delete ${file} (it also expires at ${holder.expiresAt}).`,
        )
      },
    },
  )
  return checks
}

/**
 * `--write-test`: one line per behaviour the spreadsheet was tried for. Skipped when the spreadsheet could not be
 * reached or edited; a workbook has nothing to try.
 */
async function writeTestResults(context: TargetContext, earlier: CheckResult[]): Promise<CheckResult[]> {
  const name = 'write test'
  const blocker = earlier.find((r) => r.status === 'fail')
  if (blocker) return [{ name, status: 'skip', detail: `not run: "${blocker.name}" failed` }]
  if (!context.probe?.writeTest)
    return [{ name, status: 'skip', detail: 'a workbook needs none: the tool reads and writes the file itself' }]
  const tabs = Object.values(context.target.tabs)
  try {
    const findings = await context.probe.writeTest(tabs)
    return findings.map((f) =>
      f.status === 'fail'
        ? { name: f.name, status: 'fail', detail: f.detail, fix: f.fix ?? 'See the message.', code: 'TS_SHEETS_API' }
        : f.status === 'warn'
          ? { name: f.name, status: 'warn', detail: f.detail, fix: f.fix ?? 'See the message.' }
          : { name: f.name, status: 'pass', detail: f.detail },
    )
  } catch (error) {
    const outcome = failureOf(error)
    return [{ name, ...outcome }]
  }
}

/** A Google refusal as the exit code a sync would end with: not shared or signed out is a refusal (6), not "run again". */
function sheetsRefusal(error: HttpError): CheckOutcome {
  const fix = error.hint ?? 'See the message.'
  if (error.status === 401) return fail('TS_AUTH_FAILED', error.message, fix)
  if (error.status === 403) return fail('TS_FORBIDDEN', error.message, fix)
  if (error.status === 404) return fail('TS_CONFIG_INVALID', error.message, fix)
  return fail(error.code, error.message, fix)
}

/** `Etc/GMT` and `UTC`, or `Asia/Calcutta` and `Asia/Kolkata`, are one zone. */
function sameZone(a: string, b: string): boolean {
  if (a === b) return true
  try {
    const canonical = (zone: string) => new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone
    return canonical(a) === canonical(b)
  } catch {
    return false
  }
}

/**
 * Whom a target covers and which permission each of its jobs needs, beside what the account showed. The API names
 * no role: getAll answered means a Content editor or an administrator, refused means neither.
 */
export function describeNeeds(target: TargetConfig, readsAllTags: boolean | undefined): string {
  const { scope, edits } = scopeOfTarget(target)
  const covers = scope.whole
    ? 'covers every user of the server'
    : `covers ${target.users.join(', ')}${target.teams.length ? ` (teams ${target.teams.join(', ')})` : ''}`
  const tags = { 'read-only': 'shown, not changed', own: 'its own lines', 'own-and-everyone': 'its own and the everyone lines' }[edits]
  const has = readsAllTags === undefined ? 'not known' : readsAllTags ? 'Content editor or administrator' : 'below Content editor'
  return `${covers}; export needs Content reader, import and sync Content editor; Allowed tags: ${tags}; the account: ${has}`
}
