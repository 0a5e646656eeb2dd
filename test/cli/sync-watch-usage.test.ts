/** What `sync --watch` refuses before it signs in or starts, each with what to do instead. */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { runSyncCommand } from '../../src/cli/commands/sync.ts'
import { everyToCron } from '../../src/cli/schedule.ts'
import { TimelineSheetsError } from '../../src/errors.ts'

const globals = (config: string) => ({ config, json: false, verbose: false, quiet: true })
const sync = { dryRun: false, deleteMissing: false, force: false, forceLayout: false, strictTags: false, overwriteTags: false }

async function config(google: Record<string, unknown> | undefined, spreadsheet: Record<string, unknown>): Promise<string> {
  const folder = await mkdtemp(path.join(tmpdir(), 'ts-watch-usage-'))
  const file = path.join(folder, 'config.json')
  await writeFile(
    file,
    JSON.stringify({
      timeline: { auth: { mode: 'password', baseUrl: 'http://127.0.0.1:9/', username: 'nobody' } },
      ...(google ? { google } : {}),
      targets: [{ name: 'team', spreadsheet, timeZone: 'Europe/Berlin' }],
    }),
  )
  return file
}

async function refusal(run: Promise<unknown>): Promise<TimelineSheetsError> {
  const error = await run.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(TimelineSheetsError)
  return error as TimelineSheetsError
}

describe('sync --watch refuses', () => {
  it('a Google target without google.watch, naming the setting and the scope it asks for', async () => {
    const file = await config({ auth: { mode: 'static-token' } }, { kind: 'google', spreadsheetId: '1AbCdEfGhIjKlMnOp' })
    const error = await refusal(runSyncCommand(globals(file), { ...sync, watch: true }))
    expect(error.code).toBe('TS_USAGE')
    expect(error.message).toMatch(/"watch": true in the config's "google" section/)
    expect(error.hint).toMatch(/drive\.metadata\.readonly/)
  })

  it('a Google target without google.watch, saying the scope is Restricted for an installed-app client and not for a service account', async () => {
    const file = await config({ auth: { mode: 'static-token' } }, { kind: 'google', spreadsheetId: '1AbCdEfGhIjKlMnOp' })
    const error = await refusal(runSyncCommand(globals(file), { ...sync, watch: true }))
    expect(error.hint).toMatch(/Restricted/)
    expect(error.hint).toMatch(/installed-app OAuth client .*requires restricted scope OAuth App Verification/)
    expect(error.hint).toMatch(/a service account does not/)
  })

  it('--dry-run, which a watch cannot keep', async () => {
    const file = await config(undefined, { kind: 'workbook', path: 'team.xlsx' })
    const error = await refusal(runSyncCommand(globals(file), { ...sync, dryRun: true, watch: true }))
    expect(error.code).toBe('TS_USAGE')
    expect(error.message).toMatch(/no --dry-run/)
  })

  it('--every and --cron together', async () => {
    const file = await config(undefined, { kind: 'workbook', path: 'team.xlsx' })
    const error = await refusal(runSyncCommand(globals(file), { ...sync, watch: true, every: '2m', cron: '* * * * *' }))
    expect(error.message).toMatch(/either --every or --cron/)
  })

  it('--intervals that is not a whole number', async () => {
    const file = await config(undefined, { kind: 'workbook', path: 'team.xlsx' })
    const error = await refusal(runSyncCommand(globals(file), { ...sync, watch: true, intervals: 'lots' }))
    expect(error.message).toMatch(/--intervals lots/)
  })
})

describe('--every in seconds', () => {
  it('reads seconds that divide a minute as a six-field cron pattern, and refuses others', () => {
    expect(everyToCron('30s')).toBe('*/30 * * * * *')
    expect(everyToCron('2m')).toBe('*/2 * * * *')
    expect(() => everyToCron('7s')).toThrow(/seconds must divide a minute/)
  })
})
