/**
 * A team target's sheet, whatever it holds, never reaches past the team: every write an import sends goes to a
 * timeline of one of the target's people, and the server's allowed tags keep every line the target does not own.
 * The sheet is written at random (Users and Keys of people inside and outside the team, Deletes ticked, Allowed
 * tags lines for anyone), the import runs against the reference server, and the requests the server received
 * are judged.
 */
import fc from 'fast-check'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startReferenceServer, type ReferenceServer } from '../../counterparts/timeline/server.ts'
import { silentReporter } from '../../src/cli/reporter.ts'
import { parseConfig } from '../../src/config/load.ts'
import type { AllowedTags } from '../../src/core/activity.ts'
import { partsOf } from '../../src/core/scoped-allowed-tags.ts'
import { scopeOfTarget } from '../../src/core/target-scope.ts'
import { runExport } from '../../src/engine/export.ts'
import { runImport } from '../../src/engine/import.ts'
import type { CellValue } from '../../src/sheets/port.ts'
import { createWorkbookSpreadsheet } from '../../src/sheets/workbook/backend.ts'
import { passwordSignIn } from '../../src/timeline/auth/password.ts'
import type { SignIn } from '../../src/timeline/auth/sign-in.ts'
import { createTimelineClient } from '../../src/timeline/client.ts'
import { vendorIdentifiers } from '../../src/timeline/vendor.ts'

const now = () => new Date('2026-11-10T11:00:00Z')
let server: ReferenceServer

const ALLOWED: AllowedTags = {
  everyone: ['Acme Corp, Website, Build', 'Internal, Admin, Email'],
  groups: [
    { appliesTo: ['[alice@example.com]'], combinations: ['Secret Client, Due diligence'] },
    { appliesTo: ['{Design}'], combinations: ['Acme Corp, Website, Design'] },
    { appliesTo: ['[bob@example.com]', '[carol@example.com]'], combinations: ['Initech, Support, Tickets'] },
    { appliesTo: ['{Board}'], combinations: ['Board, Minutes'] },
  ],
}

beforeAll(async () => {
  server = await startReferenceServer({
    data: { users: 4, days: 8, startDate: '2026-11-02', timeZones: ['Europe/Berlin'], otherTimelines: false, allowedTags: false },
  })
})

afterAll(async () => {
  await server?.close()
})

/** A fresh team target on the shared server, exported, with a client that records every request it sends. */
async function exportedTeamTarget(account = server.credentials.transfer!) {
  const folder = await mkdtemp(path.join(tmpdir(), 'ts-team-'))
  const file = path.join(folder, 'team.xlsx')
  const transfer = account
  const signIn = passwordSignIn({
    baseUrl: server.url,
    username: transfer.username,
    password: transfer.password,
    vendor: vendorIdentifiers('manictime'),
  })
  const sent: { method: string; url: string }[] = []
  const recording: SignIn = {
    mode: signIn.mode,
    account: signIn.account,
    entryUrl: () => signIn.entryUrl(),
    secrets: () => signIn.secrets(),
    send: (request) => {
      sent.push({ method: request.method, url: request.url })
      return signIn.send(request)
    },
  }
  const { config } = parseConfig(
    JSON.stringify({
      timeline: { auth: { mode: 'password', baseUrl: server.url, username: transfer.username } },
      teams: { Design: ['carol@example.com', 'dave@example.com'], Board: ['alice@example.com'] },
      targets: [
        {
          name: 'design',
          spreadsheet: { kind: 'workbook', path: file },
          teams: ['Design'],
          timeZone: 'Europe/Berlin',
          window: { days: 8, lookBackDays: 3 },
        },
      ],
    }),
    path.join(folder, 'config.json'),
  )
  const target = config.targets[0]!
  const client = createTimelineClient({ signIn: recording })
  const deps = () => ({
    client,
    spreadsheet: createWorkbookSpreadsheet({ path: file }),
    stateDir: path.join(folder, 'state'),
    reporter: silentReporter,
    now,
  })
  const exported = await runExport(target, deps())
  sent.length = 0
  return { target, file, sent, deps, exported }
}

const user = fc.constantFrom('alice@example.com', 'bob@example.com', 'carol@example.com', 'dave@example.com', 'zoe@example.com', '')
const tags = fc.constantFrom(
  'Acme Corp, Website, Build',
  'Secret Client, Due diligence',
  'Board, Minutes',
  'Acme Corp, Website, Design, Extra',
)
const appliesTo = fc.constantFrom(
  'everyone',
  '[alice@example.com]',
  '{Design}',
  '{Board}',
  '[carol@example.com]',
  '[bob@example.com], [carol@example.com]',
  '[zoe@example.com]',
)
/** What a manager may do to the sheet: new rows, rows with another person's Key, edits, Deletes, Allowed tags lines. */
const edit = fc.oneof(
  fc.record({ kind: fc.constant('new' as const), user, tags, hour: fc.integer({ min: 6, max: 20 }) }),
  fc.record({
    kind: fc.constant('key' as const),
    row: fc.nat(40),
    from: fc.nat(200),
    notes: fc.string({ maxLength: 5 }),
    tick: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('edit' as const), row: fc.nat(40), notes: fc.string({ maxLength: 5 }), user, tick: fc.boolean() }),
  fc.record({ kind: fc.constant('tags-line' as const), appliesTo, tags, replace: fc.option(fc.nat(8), { nil: undefined }) }),
)

describe('a team target’s sheet never reaches past the team', () => {
  it('whatever the sheet holds, every server write goes to a timeline of the team, and other lines of the allowed tags stay', async () => {
    const covered = new Set(
      server.credentials.users.filter((u) => ['carol@example.com', 'dave@example.com'].includes(u.username)).map((u) => u.tagsTimelineKey!),
    )
    const everyKey = server.credentials.users.flatMap((u) =>
      server.store.activities(u.tagsTimelineKey!).map((a) => `${u.tagsTimelineKey}/${a.id}`),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(edit, { minLength: 1, maxLength: 8 }), async (edits) => {
        server.store.setAllowedTags(ALLOWED)
        const world = await exportedTeamTarget()
        const spreadsheet = createWorkbookSpreadsheet({ path: world.file })
        const basis = await spreadsheet.read(['Activities', 'Allowed tags'])
        const tab = basis.tabs['Activities']!
        const col = (name: string) => tab.header.indexOf(name)
        const updates: { row: number; column: number; values: CellValue[] }[] = []
        const tagUpdates: { row: number; column: number; values: CellValue[] }[] = []
        const appends: CellValue[][] = []
        const tagAppends: CellValue[][] = []
        for (const e of edits) {
          const row = 'row' in e && tab.rows.length > 0 ? (e.row % tab.rows.length) + 2 : undefined
          if (e.kind === 'new') {
            const cells: CellValue[] = tab.header.map(() => null)
            cells[col('User')] = e.user
            cells[col('Date')] = 46335 // 2026-11-09
            cells[col('Start')] = e.hour / 24
            cells[col('End')] = (e.hour + 1) / 24
            cells[col('Tags')] = e.tags
            appends.push(cells)
          } else if (e.kind === 'key' && row !== undefined) {
            updates.push({ row, column: col('Key'), values: [everyKey[e.from % everyKey.length]!] })
            updates.push({ row, column: col('Notes'), values: [e.notes] })
            if (e.tick) updates.push({ row, column: col('Delete'), values: [true] })
          } else if (e.kind === 'edit' && row !== undefined) {
            updates.push({ row, column: col('Notes'), values: [e.notes] })
            updates.push({ row, column: col('User'), values: [e.user] })
            if (e.tick) updates.push({ row, column: col('Delete'), values: [true] })
          } else if (e.kind === 'tags-line') {
            const tagsTab = basis.tabs['Allowed tags']!
            if (e.replace !== undefined && tagsTab.rows.length > 0) {
              tagUpdates.push({ row: (e.replace % tagsTab.rows.length) + 2, column: 0, values: [e.appliesTo, e.tags] })
            } else tagAppends.push([e.appliesTo, e.tags])
          }
        }
        await spreadsheet.write(
          [
            { tab: 'Activities', updates, appends },
            { tab: 'Allowed tags', updates: tagUpdates, appends: tagAppends },
          ],
          basis,
        )
        const summary = await runImport(world.target, world.deps(), { force: true, maxDeletePercent: 100, maxDeleteCount: 1000 })
        expect(summary.applied).toBe(true)
        for (const request of world.sent) {
          if (request.method === 'GET' || request.url.endsWith('/token')) continue
          const timeline = /\/timelines\/([^/]+)\/activities/.exec(new URL(request.url).pathname)?.[1]
          if (timeline !== undefined) expect(covered, `${request.method} ${request.url}`).toContain(decodeURIComponent(timeline))
          else expect(request.url, request.method).toMatch(/tagcombinationlist$/)
        }
        // Every line of the server's list the target may not change is as it was, in its place.
        const tagsScope = scopeOfTarget(world.target)
        const after = server.store.allowedTags()
        expect(partsOf(after, tagsScope).foreign).toEqual(partsOf(ALLOWED, tagsScope).foreign)
        expect(after.everyone).toEqual(ALLOWED.everyone)
        expect(after.groups.filter((g) => !tagsScope.scope.owns(g.appliesTo))).toEqual(
          ALLOWED.groups.filter((g) => !tagsScope.scope.owns(g.appliesTo)),
        )
      }),
      { numRuns: 12, seed: 35 },
    )
  })

  it('exports with a Content reader account: the team’s activities, and the Allowed tags tab left alone', async () => {
    server.store.setAllowedTags(ALLOWED)
    const world = await exportedTeamTarget(server.credentials.reader!)
    expect(world.exported.result).toBe('success')
    expect(world.exported.allowedTags).toBe('unavailable')
    const tabs = (await createWorkbookSpreadsheet({ path: world.file }).read(['Activities', 'Allowed tags'])).tabs
    const users = new Set(tabs['Activities']!.rows.map((row) => row[0]))
    expect([...users].sort()).toEqual(['carol@example.com', 'dave@example.com'])
    expect(tabs['Allowed tags']!.rows).toEqual([])
  })
})
