/**
 * Many targets: the Google spreadsheets of one run share one pool of connections, as they share the
 * sign-in and the quota. Fifty targets are requests to one host; a pool each opened connections of its own (and,
 * against Google, a TLS handshake each). Counted at the Sheets fake on loopback, by TCP connections accepted.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createSheetsHandler } from '../../counterparts/sheets/handler.ts'
import { createSheetsStore } from '../../counterparts/sheets/store.ts'
import { serveOnLoopback, type LoopbackServer } from '../../counterparts/mount.ts'
import { silentReporter } from '../../src/cli/reporter.ts'
import { openSpreadsheet, runShared } from '../../src/cli/spreadsheet-backends.ts'
import { parseConfig } from '../../src/config/load.ts'

let fake: LoopbackServer
let folder: string
let connections = 0
const store = createSheetsStore({ staticTokens: ['token'], quota: false })

beforeAll(async () => {
  fake = await serveOnLoopback(createSheetsHandler(store))
  fake.server.on('connection', () => connections++)
  folder = await mkdtemp(path.join(tmpdir(), 'ts-google-connections-'))
})
afterAll(async () => {
  await fake?.close()
  await rm(folder, { recursive: true, force: true })
})

/** Six Google targets of one config, each on a spreadsheet of its own in the fake. */
function config() {
  const ids = Array.from({ length: 6 }, () => store.createSpreadsheet().spreadsheetId)
  const parsed = parseConfig(
    JSON.stringify({
      timeline: { auth: { mode: 'password', baseUrl: 'http://127.0.0.1:1', username: 'u', passwordEnv: 'P' } },
      google: { auth: { mode: 'static-token' }, rootUrl: fake.url },
      targets: ids.map((spreadsheetId, i) => ({ name: `t${i}`, spreadsheet: { kind: 'google', spreadsheetId }, timeZone: 'UTC' })),
    }),
    path.join(folder, 'timeline-sheets.json'),
  )
  return { ...parsed, file: path.join(folder, 'timeline-sheets.json') }
}

/** Each target's tabs listed, one target after another: each request could take a connection already open. */
async function readEach(shared: ReturnType<typeof runShared> | undefined): Promise<number> {
  const loaded = config()
  const before = connections
  for (const target of loaded.config.targets) {
    const sheet = await openSpreadsheet(target.spreadsheet, {
      loaded,
      target,
      reporter: silentReporter,
      env: { GOOGLE_ACCESS_TOKEN: 'token' },
      network: {},
      ...(shared ? { shared } : {}),
    })
    await sheet.read(['Sheet1'])
  }
  return connections - before
}

test('the targets of one run reuse their connections to Google; opened apart, each target opens its own', async () => {
  // Sequential requests: a connection is taken again once free. The one just used may still be finishing its
  // answer when the next request starts, so two, never one a target.
  expect(await readEach(runShared())).toBeLessThanOrEqual(2)
  expect(await readEach(undefined)).toBe(6)
})
