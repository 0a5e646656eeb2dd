/**
 * `timeline-sheets doctor`, check by check, pass and fail, against the counterparts: the reference
 * Timeline server (transfer and reader accounts) and the Sheets fake (a spreadsheet shared with the service
 * account, one not shared, one it may only view, a wrong zone), a state from another server, a held lock and
 * a state folder that cannot be made. And doctor writes nothing: only GETs (and the sign-in) reach the server,
 * no write reaches the spreadsheet.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { exportPKCS8, exportSPKI, generateKeyPair } from 'jose'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startSheetsFake, type SheetsFake } from '../../counterparts/sheets/server.ts'
import { serveOnLoopback, type LoopbackServer } from '../../counterparts/mount.ts'
import { createTimelineHandler } from '../../counterparts/timeline/handler.ts'
import { seedStore, type SeedResult } from '../../counterparts/timeline/seed.ts'
import { createTimelineStore } from '../../counterparts/timeline/store.ts'
import { doctorDeps, doctorExitCode, formatDoctor } from '../../src/cli/commands/doctor.ts'
import type { Reporter } from '../../src/cli/reporter.ts'
import { createClient, openTargetSpreadsheet } from '../../src/cli/wiring.ts'
import { loadConfig } from '../../src/config/load.ts'
import { runDoctor, type CheckResult } from '../../src/engine/doctor.ts'
import { runExport } from '../../src/engine/export.ts'
import { silentReporter } from '../../src/engine/reporter.ts'
import { stateLocation } from '../../src/state/target-state.ts'
import { tempFolder } from '../e2e/cli.ts'

const NOW = new Date('2026-11-10T11:00:00Z')
const ZONE = 'Europe/Berlin'
const SA = 'doctor@project.iam.gserviceaccount.com'
const reporter: Reporter = { ...silentReporter, result: () => undefined }

interface TimelineWorld {
  url: string
  seed: SeedResult
  /** `METHOD /path` of every request the server received. */
  requests: string[]
  /** Leave the updatedactivities link out of activity reads, as a server without incremental reads would. */
  dropUpdatedLink: boolean
  loopback: LoopbackServer
}

async function startTimeline(seed: number): Promise<TimelineWorld> {
  const store = createTimelineStore({ seed })
  const data = seedStore(store, { users: 2, days: 4, startDate: '2026-11-07', timeZones: [ZONE], otherTimelines: false, seed })
  const handler = createTimelineHandler(store)
  const world = { requests: [] as string[], dropUpdatedLink: false } as TimelineWorld
  world.loopback = await serveOnLoopback(async (request) => {
    const url = new URL(request.url)
    world.requests.push(`${request.method} ${url.pathname}`)
    const response = await handler(request)
    if (!world.dropUpdatedLink || request.method !== 'GET' || !url.pathname.endsWith('/activities') || response.status !== 200) {
      return response
    }
    const body = (await response.json()) as { links: { rel: string }[] }
    body.links = body.links.filter((l) => !l.rel.endsWith('/updatedactivities'))
    return new Response(JSON.stringify(body), { status: 200, headers: response.headers })
  })
  world.url = world.loopback.url
  world.seed = data
  return world
}

let timeline: TimelineWorld
let otherServer: TimelineWorld
let fake: SheetsFake
let folder: string
let keyFile: string
/** Laid out by a real export, shared with the service account as editor. */
let laidOut: string
/** Exported once, then its state sits in `exportedStateDir`. */
let exportedStateDir: string

/** A config with one Google target; `overrides` replace top-level fields, `target` the target's. */
async function config(name: string, target: Record<string, unknown> = {}, overrides: Record<string, unknown> = {}, world = timeline) {
  const dir = path.join(folder, name)
  await mkdir(dir, { recursive: true })
  const file = path.join(dir, 'timeline-sheets.json')
  const body = {
    timeline: { auth: { mode: 'password', baseUrl: world.url, username: world.seed.transfer!.username } },
    google: { auth: { mode: 'service-account', keyFile }, rootUrl: fake.rootUrl },
    stateDir: 'state',
    targets: [{ name: 'team', spreadsheet: { kind: 'google', spreadsheetId: laidOut }, timeZone: ZONE, ...target }],
    ...overrides,
  }
  await writeFile(file, JSON.stringify(body, null, 2))
  return file
}

const transferEnv = (world = timeline) => ({ TIMELINE_PASSWORD: world.seed.transfer!.password })

async function doctor(
  file: string,
  env: Record<string, string> = transferEnv(),
  extra: { targetName?: string; isAlive?: (pid: number) => boolean } = {},
) {
  const report = await runDoctor({ ...doctorDeps(file, reporter, env), now: () => NOW, ...extra })
  const check = (name: string): CheckResult => {
    const found = report.checks.find((c) => c.name === name)
    if (!found) throw new Error(`no check "${name}" in:\n${formatDoctor(report.checks, doctorExitCode(report.checks))}`)
    return found
  }
  return { ...report, check, exitCode: doctorExitCode(report.checks), text: formatDoctor(report.checks, doctorExitCode(report.checks)) }
}

beforeAll(async () => {
  timeline = await startTimeline(1)
  otherServer = await startTimeline(2)
  fake = await startSheetsFake({ quota: false })
  folder = await tempFolder('doctor')
  const pair = await generateKeyPair('RS256', { extractable: true })
  keyFile = path.join(folder, 'sa.json')
  await writeFile(
    keyFile,
    JSON.stringify({
      type: 'service_account',
      client_email: SA,
      private_key: await exportPKCS8(pair.privateKey),
      private_key_id: 'doctor-key',
      token_uri: `${fake.rootUrl}token`,
    }),
  )
  fake.store.auth.registerServiceAccount({ clientEmail: SA, publicKey: await exportSPKI(pair.publicKey) })
  laidOut = fake.store.createSpreadsheet({ title: 'Team time', timeZone: 'Etc/GMT', sharedWith: { [SA]: 'writer' } }).spreadsheetId

  // One real export lays the spreadsheet out (zone, protected header, layout marker) and writes a state.
  const file = await config('exported')
  const loaded = await loadConfig(file)
  const target = loaded.config.targets[0]!
  exportedStateDir = loaded.resolvePath('state')
  const summary = await runExport(target, {
    client: await createClient(loaded, reporter, transferEnv()),
    spreadsheet: await openTargetSpreadsheet(loaded, target, reporter, transferEnv()),
    stateDir: exportedStateDir,
    reporter: silentReporter,
    now: () => NOW,
  })
  expect(summary.counts.created).toBeGreaterThan(0)
}, 60_000)

afterAll(async () => {
  await timeline?.loopback.close()
  await otherServer?.loopback.close()
  await fake?.close()
})

describe('doctor on a setup that works', () => {
  it('passes every check, exits 0, and sends no write to the server or the spreadsheet', async () => {
    const file = await config('exported')
    timeline.requests.length = 0
    fake.store.resetStats()
    const sheetsBefore = JSON.stringify(fake.store.spreadsheets.get(laidOut)!.properties)
    const stateBefore = await readFile(stateLocation(exportedStateDir, 'team').stateFile, 'utf8')

    const report = await doctor(file)
    expect(
      report.checks.map((c) => [c.name, c.status]),
      report.text,
    ).toEqual([
      ['config valid', 'pass'],
      ['Timeline sign-in', 'pass'],
      ['Content editor (getAll)', 'pass'],
      ['Tags timelines visible', 'pass'],
      ['updatedactivities link', 'pass'],
      ['people and permissions', 'pass'],
      ['Google sign-in, spreadsheet reachable', 'pass'],
      ['spreadsheet editable', 'pass'],
      ['quota headroom', 'pass'],
      ['time zone', 'pass'],
      ['state of this server', 'pass'],
      ['state folder writable', 'pass'],
      ['lock free', 'pass'],
    ])
    expect(report.ok).toBe(true)
    expect(report.exitCode).toBe(0)
    expect(report.text.split('\n')).toHaveLength(14)
    expect(report.check('people and permissions').detail).toBe(
      'covers every user of the server; export needs Content reader, import and sync Content editor; Allowed tags: its own and the everyone lines; the account: Content editor or administrator',
    )
    expect(report.text).toMatch(/A sync would work\.$/)
    expect(report.check('Timeline sign-in').detail).toContain(`as ${timeline.seed.transfer!.username}`)
    expect(report.check('Google sign-in, spreadsheet reachable').detail).toContain(`as ${SA}`)
    expect(report.check('state of this server').detail).toContain('belongs to')

    // Read-only: the sign-in's token request, then only GETs; no write request reached the Sheets fake.
    expect(timeline.requests.filter((r) => !r.startsWith('GET ') && r !== 'POST /api/token')).toEqual([])
    expect(timeline.requests.some((r) => r.startsWith('GET ') && r.endsWith('/activities'))).toBe(true)
    const stats = fake.store.stats()
    expect(stats.writes).toBe(0)
    expect(stats.reads).toBe(1)
    expect(JSON.stringify(fake.store.spreadsheets.get(laidOut)!.properties)).toBe(sheetsBefore)
    expect(await readFile(stateLocation(exportedStateDir, 'team').stateFile, 'utf8')).toBe(stateBefore)
  })
})

describe('doctor, config', () => {
  it('an invalid config fails the first check with exit 2, and nothing that needs it runs', async () => {
    const file = await config('bad-zone', { timeZone: 'Mars/Olympus' })
    const report = await doctor(file)
    expect(report.check('config valid')).toMatchObject({ status: 'fail', code: 'TS_CONFIG_INVALID' })
    expect(report.check('config valid').detail).toContain('timeZone')
    expect(report.text.split('\n')[0]).toMatch(
      /^FAIL {2}config valid: .*targets\[0\]\.timeZone: "Mars\/Olympus" is not an IANA time zone.* Fix: /,
    )
    expect(report.check('Timeline sign-in')).toMatchObject({ status: 'skip', detail: 'not checked: "config valid" failed' })
    expect(report.exitCode).toBe(2)
  })

  it('--target names a target the config lacks: exit 2, with the names it has', async () => {
    const report = await doctor(await config('exported'), transferEnv(), { targetName: 'nobody' })
    expect(report.check('config valid')).toMatchObject({ status: 'fail', code: 'TS_USAGE', fix: 'Targets: team.' })
    expect(report.exitCode).toBe(2)
  })

  it('--target checks only that target', async () => {
    const file = await config(
      'two',
      {},
      {
        targets: [
          { name: 'team', spreadsheet: { kind: 'google', spreadsheetId: laidOut }, timeZone: ZONE },
          { name: 'other', spreadsheet: { kind: 'workbook', path: 'other.xlsx' }, timeZone: ZONE },
        ],
      },
    )
    const all = await doctor(file)
    expect(new Set(all.checks.map((c) => c.target).filter(Boolean))).toEqual(new Set(['team', 'other']))
    const one = await doctor(file, transferEnv(), { targetName: 'other' })
    expect(new Set(one.checks.map((c) => c.target).filter(Boolean))).toEqual(new Set(['other']))
  })
})

describe('doctor, a bug inside a check', () => {
  const planted = () => {
    throw new TypeError('planted bug')
  }

  it('is a failed check with the bug hint, handed to onUnexpectedError; a typed error is not', async () => {
    const file = await config('exported')
    const seen: [string, unknown][] = []
    const base = doctorDeps(file, reporter, transferEnv())
    const report = await runDoctor({
      ...base,
      now: () => NOW,
      timelineClient: async () => planted(),
      onUnexpectedError: (check, error) => seen.push([check, error]),
    })
    const signIn = report.checks.find((c) => c.name === 'Timeline sign-in')!
    expect(signIn).toMatchObject({ status: 'fail', code: 'TS_INTERNAL', detail: 'Unexpected error: planted bug' })
    expect(signIn.fix).toContain('--verbose')
    expect(seen).toEqual([['Timeline sign-in', expect.objectContaining({ message: 'planted bug' })]])

    seen.length = 0
    await runDoctor({ ...base, now: () => NOW, onUnexpectedError: (check, error) => seen.push([check, error]) })
    const refused = await runDoctor({
      ...doctorDeps(file, reporter, { TIMELINE_PASSWORD: 'wrong' }),
      now: () => NOW,
      onUnexpectedError: (check, error) => seen.push([check, error]),
    })
    expect(refused.checks.find((c) => c.name === 'Timeline sign-in')).toMatchObject({ status: 'fail', code: 'TS_AUTH_FAILED' })
    expect(seen).toEqual([])
  })

  it("the CLI's deps print the bug's stack with --verbose only, after the check's name", async () => {
    const file = await config('exported')
    const written: string[] = []
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (written.push(String(chunk)), true))
    try {
      const error = new TypeError('planted bug')
      doctorDeps(file, reporter, transferEnv(), undefined, false).onUnexpectedError!('Timeline sign-in', error)
      expect(written).toEqual([])
      doctorDeps(file, reporter, transferEnv(), undefined, true).onUnexpectedError!('Timeline sign-in', error)
    } finally {
      spy.mockRestore()
    }
    expect(written).toHaveLength(1)
    expect(written[0]).toMatch(/^Timeline sign-in: unexpected error:\n\s+at /)
    expect(written[0]).toContain('doctor.test.ts')
    expect(written[0]).not.toContain('planted bug')
  })
})

describe('doctor, the Timeline server', () => {
  it('a refused password fails the sign-in with exit 6; the checks that need it are skipped', async () => {
    const report = await doctor(await config('exported'), { TIMELINE_PASSWORD: 'not-the-password' })
    expect(report.check('Timeline sign-in')).toMatchObject({ status: 'fail', code: 'TS_AUTH_FAILED' })
    expect(report.check('Content editor (getAll)').status).toBe('skip')
    expect(report.check('state of this server')).toMatchObject({ status: 'skip', detail: 'not checked: "Timeline sign-in" failed' })
    expect(report.exitCode).toBe(6)
    expect(report.text).not.toContain('not-the-password')
  })

  it('says whom a team target covers and what it may change of the allowed tags', async () => {
    const [first, second] = timeline.seed.users
    const file = await config(
      'team-target',
      { teams: ['Design'], allowedTagsEdits: 'read-only' },
      { teams: { Design: [first!.username, second!.username] } },
    )
    const report = await doctor(file)
    expect(report.check('people and permissions').detail).toBe(
      `covers ${first!.username}, ${second!.username} (teams Design); export needs Content reader, import and sync Content editor; Allowed tags: shown, not changed; the account: Content editor or administrator`,
    )
  })

  it('a reader account signs in and sees the timelines, but is not a Content editor: exit 6', async () => {
    const reader = timeline.seed.reader!
    const file = await config('reader', {}, { timeline: { auth: { mode: 'password', baseUrl: timeline.url, username: reader.username } } })
    const report = await doctor(file, { TIMELINE_PASSWORD: reader.password })
    expect(report.check('Timeline sign-in').status).toBe('pass')
    expect(report.check('Content editor (getAll)')).toMatchObject({ status: 'fail', code: 'TS_FORBIDDEN' })
    expect(report.check('Content editor (getAll)').fix).toBe(
      `Give ${reader.username} the Content editor permission on the Timeline server.`,
    )
    expect(report.check('Tags timelines visible').status).toBe('pass')
    expect(report.check('Content editor (getAll)').detail).toContain('Export works with it')
    expect(report.check('people and permissions').detail).toContain('the account: below Content editor')
    expect(report.exitCode).toBe(6)
  })

  it("an ordinary user sees only their own Tags timeline: the target's other user is not visible", async () => {
    const [alice, bob] = timeline.seed.users
    const file = await config(
      'user',
      { users: [alice!.username, bob!.username] },
      { timeline: { auth: { mode: 'password', baseUrl: timeline.url, username: alice!.username } } },
    )
    const report = await doctor(file, { TIMELINE_PASSWORD: alice!.password })
    const visible = report.check('Tags timelines visible')
    expect(visible).toMatchObject({ status: 'fail', code: 'TS_CONFIG_INVALID' })
    expect(visible.detail).toContain(bob!.username)
    expect(report.check('updatedactivities link').status).toBe('skip')
  })

  it('a server that sends no updatedactivities link: a warning (runs read the whole window), exit still 0', async () => {
    timeline.dropUpdatedLink = true
    try {
      const report = await doctor(await config('exported'))
      expect(report.check('updatedactivities link').status).toBe('warn')
      expect(report.check('updatedactivities link').detail).toContain('every run reads the whole window')
      expect(report.exitCode).toBe(0)
    } finally {
      timeline.dropUpdatedLink = false
    }
  })
})

describe('doctor, the spreadsheet', () => {
  it('a spreadsheet not shared with the service account: exit 6, and the fix names the account', async () => {
    const unshared = fake.store.createSpreadsheet({ title: 'Private', sharedWith: { 'someone@example.com': 'writer' } }).spreadsheetId
    const report = await doctor(await config('unshared', { spreadsheet: { kind: 'google', spreadsheetId: unshared } }))
    const reach = report.check('Google sign-in, spreadsheet reachable')
    expect(reach).toMatchObject({ status: 'fail', code: 'TS_FORBIDDEN' })
    expect(reach.detail).toContain('The caller does not have permission')
    expect(reach.fix).toBe(`Share the spreadsheet with ${SA} as editor.`)
    expect(report.check('spreadsheet editable').status).toBe('skip')
    expect(report.check('time zone').status).toBe('skip')
    expect(report.exitCode).toBe(6)
  })

  it('an unknown spreadsheet id: exit 2 (the config names it)', async () => {
    const report = await doctor(await config('unknown-id', { spreadsheet: { kind: 'google', spreadsheetId: 'noSuchSpreadsheet' } }))
    expect(report.check('Google sign-in, spreadsheet reachable')).toMatchObject({ status: 'fail', code: 'TS_CONFIG_INVALID' })
    expect(report.exitCode).toBe(2)
  })

  it("shared as viewer: readable, but the tool's protected ranges say it may not edit: exit 6", async () => {
    const sharing = fake.store.spreadsheets.get(laidOut)!
    sharing.sharedWith = { [SA]: 'reader' }
    try {
      const report = await doctor(await config('exported'))
      expect(report.check('Google sign-in, spreadsheet reachable').status).toBe('pass')
      expect(report.check('spreadsheet editable')).toMatchObject({ status: 'fail', code: 'TS_FORBIDDEN' })
      expect(report.check('spreadsheet editable').fix).toBe(`Share it with ${SA} as editor.`)
      expect(report.exitCode).toBe(6)
    } finally {
      sharing.sharedWith = { [SA]: 'writer' }
    }
  })

  it('a spreadsheet the tool has not laid out: edit rights unproven (a warning), its zone set by the first export', async () => {
    const fresh = fake.store.createSpreadsheet({ title: 'New', timeZone: 'America/New_York', sharedWith: { [SA]: 'writer' } }).spreadsheetId
    const report = await doctor(await config('fresh', { spreadsheet: { kind: 'google', spreadsheetId: fresh } }))
    expect(report.check('spreadsheet editable').status).toBe('warn')
    expect(report.check('time zone')).toMatchObject({ status: 'pass' })
    expect(report.check('time zone').detail).toContain(`sets the spreadsheet's zone (America/New_York) to ${ZONE}`)
    expect(report.exitCode).toBe(0)
  })

  it('a laid-out spreadsheet in another zone than the target: a warning that names both zones', async () => {
    const properties = fake.store.spreadsheets.get(laidOut)!.properties
    properties.timeZone = 'America/New_York'
    try {
      const report = await doctor(await config('exported'))
      const zone = report.check('time zone')
      expect(zone.status).toBe('warn')
      expect(zone.detail).toContain('America/New_York')
      expect(zone.fix).toContain(ZONE)
    } finally {
      properties.timeZone = ZONE
    }
    expect((await doctor(await config('exported'))).check('time zone').status).toBe('pass')
  })

  it('quota: a 429 fails (run again later, exit 1); a pace above 60 a minute is a warning', async () => {
    fake.store.faults.inject({ status: 429, times: 1 })
    const refused = await doctor(await config('exported'))
    expect(refused.check('quota headroom')).toMatchObject({ status: 'fail', code: 'TS_SHEETS_API' })
    expect(refused.exitCode).toBe(1)

    const fast = await config(
      'fast',
      {},
      { google: { auth: { mode: 'service-account', keyFile }, rootUrl: fake.rootUrl, readsPerMinute: 120 } },
    )
    const report = await doctor(fast)
    expect(report.check('quota headroom').status).toBe('warn')
    expect(report.check('quota headroom').fix).toContain('google.readsPerMinute')
  })

  it('a workbook: readable and writable, or a file that is no workbook', async () => {
    const file = await config('workbook', { spreadsheet: { kind: 'workbook', path: 'team.xlsx' } })
    const absent = await doctor(file)
    expect(absent.check('workbook readable').status).toBe('pass')
    expect(absent.check('workbook writable').detail).toContain('the first export makes it')
    expect(absent.checks.some((c) => c.name === 'time zone')).toBe(false)
    expect(absent.exitCode).toBe(0)

    await writeFile(path.join(path.dirname(file), 'team.xlsx'), 'not a zip')
    const broken = await doctor(file)
    expect(broken.check('workbook readable')).toMatchObject({ status: 'fail', code: 'TS_WORKBOOK' })
    expect(broken.check('workbook writable').status).toBe('skip')

    const missingFolder = await doctor(
      await config('workbook-folder', { spreadsheet: { kind: 'workbook', path: 'no/such/folder/team.xlsx' } }),
    )
    expect(missingFolder.check('workbook readable').status).toBe('fail')
  })
})

describe('doctor, state and lock', () => {
  it('a state built from another server: exit 7, and the way out', async () => {
    // The same state folder, but the config now signs in to another server.
    const file = await config(
      'moved',
      {},
      {
        timeline: { auth: { mode: 'password', baseUrl: otherServer.url, username: otherServer.seed.transfer!.username } },
        stateDir: exportedStateDir,
      },
      otherServer,
    )
    const report = await doctor(file, transferEnv(otherServer))
    const state = report.check('state of this server')
    expect(state).toMatchObject({ status: 'fail', code: 'TS_STATE' })
    expect(state.detail).toContain(new URL('/api', timeline.url).href)
    expect(state.detail).toContain(new URL('/api', otherServer.url).href)
    expect(state.fix).toContain('export --full')
    expect(report.exitCode).toBe(7)
  })

  it('no state yet: passes, the first run starts one', async () => {
    const report = await doctor(await config('no-state'))
    expect(report.check('state of this server').detail).toContain('no state yet')
  })

  it('a lock held by a live run: exit 5; a stale one (its process gone) passes', async () => {
    const file = await config('locked', {}, { stateDir: path.join(folder, 'locked-state') })
    const lockFile = stateLocation(path.join(folder, 'locked-state'), 'team').lockFile
    await mkdir(path.dirname(lockFile), { recursive: true })
    const expiresAt = new Date(NOW.getTime() + 3_600_000).toISOString()
    await writeFile(
      lockFile,
      JSON.stringify({
        pid: process.pid,
        host: (await import('node:os')).hostname(),
        command: 'sync',
        createdAt: NOW.toISOString(),
        expiresAt,
      }),
    )
    const held = await doctor(file)
    expect(held.check('lock free')).toMatchObject({ status: 'fail', code: 'TS_LOCKED' })
    expect(held.check('lock free').detail).toContain(`sync (pid ${process.pid}`)
    expect(held.exitCode).toBe(5)
    // Doctor only looked: the lock is still there.
    expect(JSON.parse(await readFile(lockFile, 'utf8')).pid).toBe(process.pid)

    const stale = await doctor(file, transferEnv(), { isAlive: () => false })
    expect(stale.check('lock free').status).toBe('pass')
  })

  it('a state folder that cannot be made (its path runs through a file): exit 2, naming the path', async () => {
    const blocker = path.join(folder, 'a-file')
    await writeFile(blocker, '')
    const report = await doctor(await config('unwritable', {}, { stateDir: path.join(blocker, 'state') }))
    const writable = report.check('state folder writable')
    expect(writable).toMatchObject({ status: 'fail', code: 'TS_FILE_ACCESS' })
    expect(writable.detail).toContain(blocker)
    expect(report.exitCode).toBe(2)
  })
})
