/**
 * Backends are registered through one map, so a third one needs a
 * folder, a config branch and an entry — no engine change. These tests hold
 * the map and the config schema to each other, and show the map is the only
 * way a target's spreadsheet is opened.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterEach, expect, test, vi } from 'vitest'
import { SPREADSHEET_BACKENDS, openSpreadsheet, runShared } from '../../src/cli/spreadsheet-backends.ts'
import { openTargetSpreadsheet } from '../../src/cli/wiring.ts'
import { parseConfig } from '../../src/config/load.ts'
import { configJsonSchema } from '../../src/config/json-schema.ts'
import { silentReporter } from '../../src/cli/reporter.ts'

// Counted, not replaced: the real functions run.
const { googleLanes, signIns } = vi.hoisted(() => ({ googleLanes: vi.fn(), signIns: vi.fn() }))
vi.mock('../../src/sheets/google/backend.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/sheets/google/backend.ts')>()
  return {
    ...original,
    createGoogleLanes: (...args: Parameters<typeof original.createGoogleLanes>) => (googleLanes(), original.createGoogleLanes(...args)),
  }
})
vi.mock('../../src/cli/google-sign-in.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/cli/google-sign-in.ts')>()
  return { ...original, googleSignIn: (...args: Parameters<typeof original.googleSignIn>) => (signIns(), original.googleSignIn(...args)) }
})

const folders: string[] = []
afterEach(async () => {
  for (const f of folders.splice(0)) await rm(f, { recursive: true, force: true })
})

/** The `kind` values the config's JSON Schema (generated from zod) allows for a target's spreadsheet. */
function configKinds(): string[] {
  const kinds: string[] = []
  const walk = (node: unknown, underSpreadsheet: boolean): void => {
    if (Array.isArray(node)) return node.forEach((n) => walk(n, underSpreadsheet))
    if (node === null || typeof node !== 'object') return
    const record = node as Record<string, unknown>
    const kind = (record['properties'] as Record<string, { const?: unknown }> | undefined)?.['kind']
    if (underSpreadsheet && typeof kind?.const === 'string') kinds.push(kind.const)
    for (const [key, value] of Object.entries(record)) walk(value, underSpreadsheet || key === 'spreadsheet')
  }
  walk(configJsonSchema(), false)
  return kinds
}

test('every spreadsheet kind the config accepts has exactly one opener, and no opener lacks a config branch', () => {
  expect(Object.keys(SPREADSHEET_BACKENDS).sort()).toEqual([...new Set(configKinds())].sort())
  expect(Object.keys(SPREADSHEET_BACKENDS).sort()).toEqual(['google', 'workbook'])
})

test('a target opens through the map: the backend it returns says the kind the config named', async () => {
  const folder = await mkdtemp(path.join(tmpdir(), 'ts-backends-'))
  folders.push(folder)
  const parsed = parseConfig(
    JSON.stringify({
      timeline: { auth: { mode: 'password', baseUrl: 'http://127.0.0.1:1', username: 'u', passwordEnv: 'P' } },
      targets: [{ name: 't', spreadsheet: { kind: 'workbook', path: 'book.xlsx' }, timeZone: 'Europe/Berlin' }],
    }),
    path.join(folder, 'timeline-sheets.json'),
  )
  const loaded = { ...parsed, file: path.join(folder, 'timeline-sheets.json') }
  const target = loaded.config.targets[0]!
  const viaWiring = await openTargetSpreadsheet(loaded, target, silentReporter, {})
  const viaMap = await openSpreadsheet(target.spreadsheet, { loaded, target, reporter: silentReporter, env: {}, network: {} })
  expect(viaWiring.kind).toBe('workbook')
  expect(viaMap.kind).toBe('workbook')
  expect(viaWiring.describe()).toBe(path.join(folder, 'book.xlsx'))
})

test('a Google target without a "google" section is refused by its opener with the way out', async () => {
  const parsed = parseConfig(
    JSON.stringify({
      timeline: { auth: { mode: 'password', baseUrl: 'http://127.0.0.1:1', username: 'u', passwordEnv: 'P' } },
      targets: [{ name: 'g', spreadsheet: { kind: 'workbook', path: 'x.xlsx' }, timeZone: 'Europe/Berlin' }],
    }),
    '/cfg/timeline-sheets.json',
  )
  const loaded = { ...parsed, file: '/cfg/timeline-sheets.json' }
  const target = { ...loaded.config.targets[0]!, spreadsheet: { kind: 'google' as const, spreadsheetId: 'abcdefghijkl' } }
  await expect(
    openSpreadsheet(target.spreadsheet, { loaded, target, reporter: silentReporter, env: {}, network: {} }),
  ).rejects.toMatchObject({
    code: 'TS_CONFIG_INVALID',
    message: expect.stringContaining('Target g uses a Google spreadsheet'),
  })
})

test('runShared makes a thing once for every caller, and makes it again after a failure', async () => {
  const shared = runShared()
  let made = 0
  const make = async () => ++made
  expect(await Promise.all([shared.once('a', make), shared.once('a', make)])).toEqual([1, 1])
  expect(await shared.once('b', make)).toBe(2)
  await expect(shared.once('c', async () => Promise.reject(new Error('no network')))).rejects.toThrow('no network')
  expect(await shared.once('c', make)).toBe(3)
})

test('the Google spreadsheets of one run share the sign-in and the lanes of the per-user quota; without a run, each has its own', async () => {
  const folder = await mkdtemp(path.join(tmpdir(), 'ts-backends-'))
  folders.push(folder)
  const parsed = parseConfig(
    JSON.stringify({
      timeline: { auth: { mode: 'password', baseUrl: 'http://127.0.0.1:1', username: 'u', passwordEnv: 'P' } },
      google: { auth: { mode: 'static-token' }, rootUrl: 'http://127.0.0.1:1/' },
      targets: ['a', 'b', 'c'].map((name) => ({
        name,
        spreadsheet: { kind: 'google', spreadsheetId: `1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcde${name}` },
        timeZone: 'UTC',
      })),
    }),
    path.join(folder, 'timeline-sheets.json'),
  )
  const loaded = { ...parsed, file: path.join(folder, 'timeline-sheets.json') }
  const env = { GOOGLE_ACCESS_TOKEN: 'token' }
  const open = (target: (typeof loaded.config.targets)[number], shared?: ReturnType<typeof runShared>) =>
    openSpreadsheet(target.spreadsheet, { loaded, target, reporter: silentReporter, env, network: {}, ...(shared ? { shared } : {}) })

  const shared = runShared()
  const inOneRun = await Promise.all(loaded.config.targets.map((t) => open(t, shared)))
  expect(inOneRun.map((s) => s.kind)).toEqual(['google', 'google', 'google'])
  expect(googleLanes).toHaveBeenCalledTimes(1)
  expect(signIns).toHaveBeenCalledTimes(1)

  await open(loaded.config.targets[0]!)
  await open(loaded.config.targets[1]!)
  expect(googleLanes).toHaveBeenCalledTimes(3)
  expect(signIns).toHaveBeenCalledTimes(3)
})
