/**
 * Reads and validates the config file. Every problem is reported at once,
 * each with the path of the bad field, so one edit fixes them all.
 */
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import type { z } from 'zod'
import { TimelineSheetsError } from '../errors.ts'
import { configSchema, type Config, type TargetConfig } from './schema.ts'
import { plural } from '../core/describe.ts'
import { SUMMARY_TAB } from '../core/summary.ts'
import { APPROVED_TAB } from '../core/approved-tab.ts'

export interface LoadedConfig {
  config: Config
  /** Absolute path of the file; relative paths inside it are resolved against its folder. */
  file: string
  resolvePath(relative: string): string
}

export async function loadConfig(file: string): Promise<LoadedConfig> {
  const absolute = path.resolve(file)
  let text: string
  try {
    text = await readFile(absolute, 'utf8')
  } catch (error) {
    throw new TimelineSheetsError('TS_CONFIG_NOT_FOUND', `Cannot read the config file ${absolute}`, {
      hint: 'Pass --config <file>, or copy config.example.json to timeline-sheets.json and edit it.',
      cause: error,
    })
  }
  return { ...parseConfig(text, absolute), file: absolute }
}

/** Names Windows reserves for devices, in any case: a folder `.timeline-sheets\con` is the console, not a folder. */
const WINDOWS_DEVICE_NAME = /^(con|prn|aux|nul|com[1-9]|lpt[1-9])$/i

export function parseConfig(text: string, file: string): Omit<LoadedConfig, 'file'> {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new TimelineSheetsError('TS_CONFIG_INVALID', `${file} is not valid JSON: ${(error as Error).message}`, {
      hint: 'Fix the JSON syntax (a missing comma or quote is the usual cause).',
    })
  }
  const result = configSchema.safeParse(json)
  if (!result.success) {
    throw new TimelineSheetsError(
      'TS_CONFIG_INVALID',
      `${file} has ${plural(result.error.issues.length, 'problem')}:\n${formatIssues(result.error.issues)}`,
      {
        hint: 'See config.example.json for a complete example.',
      },
    )
  }
  const config: Config = { ...result.data, targets: result.data.targets.map((t) => ({ ...t })) }
  const names = new Set<string>()
  for (const [i, target] of config.targets.entries()) {
    // The name is a folder of the state: Windows and macOS do not tell `Team` from `team`, so two such targets
    // would share one state there.
    if (names.has(target.name.toLowerCase())) {
      throw new TimelineSheetsError(
        'TS_CONFIG_INVALID',
        `${file} has a problem:\n  - targets[${i}].name: "${target.name}" is used by another target (case aside)`,
        {
          hint: 'Give each target its own name, not only in case: it keys locks and state folders, and Windows and macOS do not tell names apart by case.',
        },
      )
    }
    names.add(target.name.toLowerCase())
    if (WINDOWS_DEVICE_NAME.test(target.name)) {
      throw new TimelineSheetsError(
        'TS_CONFIG_INVALID',
        `${file} has a problem:\n  - targets[${i}].name: "${target.name}" is a device name on Windows, so its state folder cannot be made there`,
        { hint: 'Choose another name (CON, PRN, AUX, NUL, COM1–COM9 and LPT1–LPT9 are reserved on Windows, in any case).' },
      )
    }
    if (!isValidTimeZone(target.timeZone)) {
      throw new TimelineSheetsError(
        'TS_CONFIG_INVALID',
        `${file} has a problem:\n  - targets[${i}].timeZone: "${target.timeZone}" is not an IANA time zone`,
        {
          hint: 'Use a zone such as Europe/Berlin, America/New_York or UTC.',
        },
      )
    }
    const clash = tabTitleClash(target)
    if (clash) {
      throw new TimelineSheetsError(
        'TS_CONFIG_INVALID',
        `${file} has a problem:\n  - targets[${i}].${clash.field}: "${clash.title}" is also the title of ${clash.other}; each tab the tool writes needs a title of its own`,
        {
          hint: 'Google Sheets and Excel do not tell tab titles apart by case: choose another title in targets[].tabs.',
        },
      )
    }
    if (target.spreadsheet.kind === 'google' && !config.google) {
      throw new TimelineSheetsError(
        'TS_CONFIG_INVALID',
        `${file} has a problem:\n  - targets[${i}].spreadsheet: a Google spreadsheet needs a "google" section with its sign-in`,
        {
          hint: 'Add "google": { "auth": { "mode": "service-account", "keyFile": "…" } }, or use { "kind": "workbook", "path": "…" }.',
        },
      )
    }
  }
  for (const [i, target] of config.targets.entries()) {
    resolvePeople(target, config.teams, file, i)
    target.userCanAppendTags = config.timeline.userCanAppendTags
  }
  const folder = path.dirname(file)
  return { config, resolvePath: (relative) => path.resolve(folder, relative) }
}

/**
 * The first of a target's tab titles that another of its tabs already has (compared without case, as Google
 * Sheets and Excel compare them): the three configurable ones, the Summary and the other timelines' tabs. Found
 * here, a clash is said before any request, naming the field to change. With approvals, the Approved tab's title is
 * fixed as the Summary's is.
 */
function tabTitleClash(target: Config['targets'][number]): { field: string; title: string; other: string } | undefined {
  // The Summary's title is fixed, so it goes first: a clash then names the field a person can change.
  const titles: { field: string; title: string; what: string }[] = [
    { field: 'tabs', title: SUMMARY_TAB, what: 'the Summary tab' },
    ...(target.approvals ? [{ field: 'approvals', title: APPROVED_TAB, what: 'the Approved tab' }] : []),
    { field: 'tabs.activities', title: target.tabs.activities, what: 'tabs.activities' },
    { field: 'tabs.allowedTags', title: target.tabs.allowedTags, what: 'tabs.allowedTags' },
    { field: 'tabs.syncLog', title: target.tabs.syncLog, what: 'tabs.syncLog' },
    ...target.otherTimelines.map((name, j) => ({ field: `otherTimelines[${j}]`, title: name, what: `otherTimelines[${j}]` })),
    ...(target.approvals ? [{ field: 'approvals.tab', title: target.approvals.tab, what: 'approvals.tab' }] : []),
  ]
  const seen = new Map<string, string>()
  for (const { field, title, what } of titles) {
    const key = title.trim().toLowerCase()
    const other = seen.get(key)
    if (other !== undefined) return { field, title, other }
    seen.set(key, what)
  }
  return undefined
}

export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((issue) => `  - ${issue.path.length ? fieldPath(issue.path) : '(top level)'}: ${issue.message}`).join('\n')
}

/** A field's place in the file as JavaScript would write it, the one way every config message uses: `targets[0].window.days`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  return path.map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i === 0 ? '' : '.'}${String(key)}`)).join('')
}

export function isValidTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone })
    return true
  } catch {
    return false
  }
}

/** Reads a secret named by an `…Env` field; the error names the variable, never a value. */
export function secretFromEnv(name: string, purpose: string, env: NodeJS.ProcessEnv = process.env): string {
  const value = env[name]
  if (!value) {
    throw new TimelineSheetsError('TS_CONFIG_INVALID', `The environment variable ${name} is not set; it holds ${purpose}.`, {
      hint: `Set ${name} in the environment of the job (not in the config file).`,
    })
  }
  return value
}

/**
 * Resolves whom a target covers: `users` becomes the users it lists and the members of the teams it lists, in
 * that order, each once; `teamDirectory` the config's teams. A team the directory does not know is refused, so a
 * misspelt team never widens a sheet to the whole server.
 */
function resolvePeople(target: TargetConfig, teams: Config['teams'], file: string, index: number): void {
  const known = new Map(Object.keys(teams).map((name) => [name.trim().toLowerCase(), name]))
  const covered = new Map<string, string>()
  for (const user of target.users) if (!covered.has(user.toLowerCase())) covered.set(user.toLowerCase(), user)
  for (const [j, team] of target.teams.entries()) {
    const name = known.get(team.trim().toLowerCase())
    if (name === undefined) {
      throw new TimelineSheetsError(
        'TS_CONFIG_INVALID',
        `${file} has a problem:\n  - targets[${index}].teams[${j}]: "${team}" is not a team of the top-level "teams"${known.size ? ` (${[...known.values()].join(', ')})` : ''}`,
        { hint: 'Add the team and its members to "teams": { "Design": ["alice@example.com", …] }, or correct the name.' },
      )
    }
    for (const member of teams[name]!) if (!covered.has(member.toLowerCase())) covered.set(member.toLowerCase(), member)
  }
  target.users = [...covered.values()]
  target.teamDirectory = teams
}
