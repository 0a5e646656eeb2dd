/**
 * `doctor --write-test` on a Google spreadsheet, against the Sheets fake through the real client: every
 * behaviour the write protocol relies on is tried in a scratch tab that is removed afterwards, none of the
 * tool's tabs is touched, and each behaviour that does not hold (the fake turned the other way) is a failed
 * line with what to do.
 */
import { setupServer } from 'msw/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSheetsHandler } from '../../counterparts/sheets/handler.ts'
import { createManager } from '../../counterparts/sheets/manager.ts'
import { createSheetsStore, type SheetsStoreOptions } from '../../counterparts/sheets/store.ts'
import { mswHandlerFor, type WebHandler } from '../../counterparts/mount.ts'
import { signInWithStaticToken } from '../../src/sheets/google/auth.ts'
import { createGoogleSpreadsheet } from '../../src/sheets/google/backend.ts'
import { createGoogleProbe } from '../../src/sheets/google/probe.ts'
import type { WriteTestFinding } from '../../src/sheets/probe.ts'
import { directClient, othersMetadata } from './google-fixture.ts'

const ROOT = 'http://sheets.test/'
const TOKEN = 'static-test-token'
const server = setupServer()
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }))
afterAll(() => server.close())

const TOOL_TABS = ['Activities', 'Allowed tags', 'Sync log']

/** What stands between the tool and the fake: nothing, or a proxy that refuses compressed bodies. */
type FrontEnd = (handler: WebHandler) => WebHandler

const refusingCompressedBodies: FrontEnd = (handler) => async (request) =>
  request.headers.get('content-encoding')
    ? new Response('<html><title>415 Unsupported Media Type</title></html>', { status: 415, headers: { 'content-type': 'text/html' } })
    : handler(request)

/** A spreadsheet the tool has written to, and the write test run on it. */
async function writeTest(options: SheetsStoreOptions = {}, others = 0, how: { frontEnd?: FrontEnd; gzipRequests?: boolean } = {}) {
  const store = createSheetsStore({ staticTokens: [TOKEN], quota: false, ...options })
  const handler = createSheetsHandler(store)
  server.resetHandlers(mswHandlerFor(ROOT, handler))
  const spreadsheetId = store.createSpreadsheet().spreadsheetId
  const sheet = createGoogleSpreadsheet({ spreadsheetId, auth: signInWithStaticToken(TOKEN), rootUrl: ROOT })
  await sheet.ensureLayout(
    [
      {
        title: 'Activities',
        columns: [
          { name: 'User', kind: 'text' },
          { name: 'Key', kind: 'text' },
        ],
      },
    ],
    { timeZone: 'UTC' },
  )
  const empty = await sheet.read(['Activities'])
  await sheet.write(
    [
      {
        tab: 'Activities',
        keyColumn: 1,
        appends: [
          ['u1', 'key/1'],
          ['u2', 'key/2'],
        ],
      },
    ],
    empty,
  )
  const ss = store.spreadsheets.get(spreadsheetId)!
  const activities = ss.sheets.find((s) => s.properties.title === 'Activities')!.properties.sheetId
  if (others > 0) {
    const api = directClient(signInWithStaticToken(TOKEN).client, ROOT)
    await api.spreadsheets.batchUpdate({ spreadsheetId, requestBody: { requests: othersMetadata(activities, others, 2, 'other') } })
  }
  const before = createManager(store).readTab(spreadsheetId, 'Activities')
  const metadataBefore = ss.metadata.size
  // The export above went straight to the fake; the probe goes through the front end.
  if (how.frontEnd) server.resetHandlers(mswHandlerFor(ROOT, how.frontEnd(handler)))
  const probe = createGoogleProbe({
    spreadsheetId,
    auth: signInWithStaticToken(TOKEN),
    rootUrl: ROOT,
    ...(how.gzipRequests === undefined ? {} : { gzipRequests: how.gzipRequests }),
  })
  const findings = await probe.writeTest!(TOOL_TABS)
  return { store, spreadsheetId, findings, before, metadataBefore, ss }
}

const byName = (findings: WriteTestFinding[], start: string) => findings.find((f) => f.name.startsWith(start))

describe('doctor --write-test on a Google spreadsheet', () => {
  it('as Google behaves: every behaviour holds, the scratch tab goes, and no tab of the tool changes', async () => {
    const { findings, store, spreadsheetId, before, metadataBefore, ss } = await writeTest()
    expect(findings.map((f) => [f.name, f.status])).toEqual([
      ['scratch tab added', 'pass'],
      ['a gzip-compressed request body is applied', 'pass'],
      ['a sort moves row metadata with its row', 'pass'],
      ['inserted and deleted rows move row metadata', 'pass'],
      ['a value write through a filter that matches nothing writes nothing', 'pass'],
      ['a metadata delete through a filter that matches nothing is a no-op', 'pass'],
      ["a write planned before a manager's sort lands every cell on its row", 'pass'],
      ["what Google's 10 MB request limit counts of a compressed body", 'pass'],
      ['scratch tab removed', 'pass'],
      ['developer-metadata room', 'pass'],
    ])
    expect(byName(findings, 'a write planned')!.detail).toMatch(/^5 of 5 rows written through claims after the sort, none elsewhere$/)
    // The fake counts what a body unpacks to, the stricter reading.
    expect(byName(findings, "what Google's 10 MB")!.detail).toMatch(
      /^what a body unpacks to: 10\.\d MB of JSON sent as \d+ KB was refused \("Request payload size exceeds the limit: 10485760 bytes\."\); the tool's requests \(8 MB of JSON at most\) stay under it$/,
    )
    expect(byName(findings, 'developer-metadata room')!.detail).toContain('"Activities" 30,000 free')
    expect(ss.sheets.map((s) => s.properties.title)).toEqual(['Activities'])
    expect(createManager(store).readTab(spreadsheetId, 'Activities')).toEqual(before)
    expect(ss.metadata.size).toBe(metadataBefore)
  })

  it('a sort that leaves row metadata behind fails its line, and the protocol still writes no cell to another row', async () => {
    const { findings } = await writeTest({ undocumented: { sortMovesRowMetadata: false } })
    expect(byName(findings, 'a sort moves')).toMatchObject({ status: 'fail', fix: expect.stringContaining('never written through') })
    expect(byName(findings, 'inserted and deleted')!.status).toBe('pass')
    const protocol = byName(findings, 'a write planned')!
    expect(protocol.status).toBe('pass')
    expect(protocol.detail).toContain('none elsewhere')
  })

  it('filters that match nothing refused: both lines fail and say what a run would then do', async () => {
    const { findings } = await writeTest({ undocumented: { emptyFilter: 'refused' } })
    expect(byName(findings, 'a value write through')).toMatchObject({ status: 'fail', detail: expect.stringContaining('refused') })
    expect(byName(findings, 'a metadata delete through')).toMatchObject({
      status: 'fail',
      fix: expect.stringContaining('after its values landed'),
    })
    expect(byName(findings, 'scratch tab removed')!.status).toBe('pass')
  })

  it('a proxy that refuses compressed bodies fails its line and says to send plain JSON; the scratch tab still goes', async () => {
    const { findings } = await writeTest({}, 0, { frontEnd: refusingCompressedBodies, gzipRequests: true })
    expect(byName(findings, 'a gzip-compressed request body')).toMatchObject({
      status: 'fail',
      fix: expect.stringContaining('"gzipRequests": false'),
    })
    // The steps after it would be refused the same way: not tried, and the scratch tab goes.
    expect(findings.map((f) => [f.name, f.status])).toEqual([
      ['scratch tab added', 'pass'],
      ['a gzip-compressed request body is applied', 'fail'],
      ['scratch tab removed', 'pass'],
      ['developer-metadata room', 'pass'],
    ])
  })

  it('with gzipRequests off the compressed body is not tried and every other line holds', async () => {
    const { findings } = await writeTest({}, 0, { frontEnd: refusingCompressedBodies, gzipRequests: false })
    expect(byName(findings, 'a gzip-compressed request body')).toMatchObject({
      status: 'pass',
      detail: expect.stringContaining('not tried'),
    })
    expect(byName(findings, "what Google's 10 MB")).toMatchObject({ status: 'pass', detail: expect.stringContaining('not tried') })
    expect(findings.filter((f) => f.status !== 'pass')).toEqual([])
  })

  it('a service whose 10 MB limit counts the bytes as sent: the line says so, asks to be told, and the scratch tab goes', async () => {
    const { findings, ss } = await writeTest({ undocumented: { payloadLimitCounts: 'sent' } })
    expect(byName(findings, "what Google's 10 MB")).toMatchObject({
      status: 'pass',
      detail: expect.stringMatching(
        /^the bytes as sent: 10\.\d MB of JSON sent as \d+ KB was applied\..*Tell the timeline-sheets maintainers/,
      ),
    })
    expect(findings.filter((f) => f.status !== 'pass')).toEqual([])
    expect(ss.sheets.map((s) => s.properties.title)).toEqual(['Activities'])
  })

  it('reports how much metadata room others leave: a warning below 10,000 characters, a failure with none', async () => {
    const short = await writeTest({}, 25_000)
    expect(byName(short.findings, 'developer-metadata room')).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('"Activities" 5,000 free'),
    })
    const full = await writeTest({}, 30_000)
    expect(byName(full.findings, 'developer-metadata room')!.status).toBe('fail')
  })

  it('an account that may only read: one failed line, nothing added', async () => {
    const store = createSheetsStore({ staticTokens: { [TOKEN]: { subject: 'reader@example.com' } }, quota: false })
    server.resetHandlers(mswHandlerFor(ROOT, createSheetsHandler(store)))
    const spreadsheetId = store.createSpreadsheet({ sharedWith: { 'reader@example.com': 'reader' } }).spreadsheetId
    const probe = createGoogleProbe({ spreadsheetId, auth: signInWithStaticToken(TOKEN), rootUrl: ROOT })
    const findings = await probe.writeTest!(TOOL_TABS)
    expect(findings).toEqual([
      expect.objectContaining({ name: 'scratch tab added', status: 'fail', fix: expect.stringContaining('editor') }),
    ])
    expect(store.spreadsheets.get(spreadsheetId)!.sheets).toHaveLength(1)
  })
})
